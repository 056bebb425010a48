#include "binning_memory_resource.h"

#include <algorithm>
#include <new>
#include <string>

#include "rmmjs/format.hpp"

namespace rmmjs {

BinningMemoryResource::BinningMemoryResource(ResourceRef upstream) : upstream_(std::move(upstream)) {}

rmmjs_status BinningMemoryResource::Init(rmmjs_resource*) {
  tables_.push_back(std::make_unique<BinTable>());
  table_.store(tables_.back().get(), std::memory_order_release);
  return RMMJS_OK;
}

rmmjs_status BinningMemoryResource::Remember(rmmjs_resource* mr, size_t bytes, rmmjs_stream stream, void** out) {
  try {
    served_by_.Insert(*out, Served{mr, bytes});
  } catch (const std::bad_alloc&) {
    mr->ops->deallocate(mr, *out, bytes, stream);
    *out = nullptr;
    return Fail(RMMJS_ERR_OUT_OF_MEMORY, "BinningMemoryResource: out of host memory");
  }
  return RMMJS_OK;
}

rmmjs_status BinningMemoryResource::NotHandedOut(void* ptr, size_t bytes, const char* why) {
  return Fail(RMMJS_ERR_LOGIC, "BinningMemoryResource: cannot deallocate " + std::to_string(bytes) + " bytes at " +
                                   FormatHex(reinterpret_cast<uintptr_t>(ptr)) + ": " + why);
}

bool BinningMemoryResource::AddBin(size_t allocation_size, rmmjs_resource* bin) {
  size_t size = AlignUp(allocation_size, RMMJS_ALLOCATION_ALIGNMENT);
  std::lock_guard<std::mutex> lock(mutex_);
  const BinTable& current = *table_.load(std::memory_order_relaxed);
  auto at = std::lower_bound(current.sizes.begin(), current.sizes.end(), size);
  if (at != current.sizes.end() && *at == size) return false;
  auto index = at - current.sizes.begin();
  auto next = std::make_unique<BinTable>(current);
  next->sizes.insert(next->sizes.begin() + index, size);
  next->resources.insert(next->resources.begin() + index, bin);
  tables_.reserve(tables_.size() + 1);
  bins_.push_back(ResourceRef::Retain(bin));
  tables_.push_back(std::move(next));
  table_.store(tables_.back().get(), std::memory_order_release);
  return true;
}

bool BinningMemoryResource::HasBin(size_t allocation_size) const {
  size_t size = AlignUp(allocation_size, RMMJS_ALLOCATION_ALIGNMENT);
  const BinTable& table = *table_.load(std::memory_order_acquire);
  return std::binary_search(table.sizes.begin(), table.sizes.end(), size);
}

std::vector<ResourceRef> BinningMemoryResource::Bins() const {
  const BinTable& table = *table_.load(std::memory_order_acquire);
  std::vector<ResourceRef> bins;
  bins.reserve(table.resources.size());
  for (rmmjs_resource* bin : table.resources) bins.push_back(ResourceRef::Retain(bin));
  return bins;
}

}  // namespace rmmjs
