// RMM's binning_memory_resource: a request goes to the bin with the smallest size that fits it
// (std::map::lower_bound), or to the upstream when no bin does. A deallocation goes back to the
// resource that served it (RMM sends it where an allocation of its size would go now, which is
// another resource once a smaller bin was added: the memory could never be returned). Bins are
// any resources (the JavaScript side creates FixedSizeMemoryResource bins); the resource keeps a
// reference to each.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "rmmjs/abi.h"
#include "rmmjs/pointer_table.hpp"
#include "rmmjs/resource.hpp"
#include "rmmjs/status.hpp"

namespace rmmjs {

class BinningMemoryResource {
 public:
  static constexpr const char* kTypeName = "BinningMemoryResource";

  explicit BinningMemoryResource(ResourceRef upstream);
  rmmjs_status Init(rmmjs_resource* self);  // publishes the empty bin table

  rmmjs_status Allocate(size_t bytes, rmmjs_stream stream, void** out) {
    rmmjs_resource* mr = ResourceFor(bytes);
    RMMJS_TRY(mr->ops->allocate(mr, bytes, stream, out));
    return Remember(mr, bytes, stream, out);
  }
  rmmjs_status Deallocate(void* ptr, size_t bytes, rmmjs_stream stream) {
    Served served;
    if (!served_by_.Take(ptr, &served))
      return NotHandedOut(ptr, bytes, "a pointer it did not allocate or already deallocated");
    rmmjs_status status = served.bytes == bytes ? served.mr->ops->deallocate(served.mr, ptr, bytes, stream)
                                                : NotHandedOut(ptr, bytes, "it was allocated with another size");
    if (status != RMMJS_OK) served_by_.Insert(ptr, served);  // still handed out; the slot it just left
    return status;
  }
  rmmjs_resource* Upstream() const { return upstream_.get(); }

  // Adds `bin` for requests up to `allocation_size` (aligned up to 256) unless a bin of that size
  // exists (then nothing changes, as RMM). Returns whether it was added. May throw std::bad_alloc.
  bool AddBin(size_t allocation_size, rmmjs_resource* bin);
  bool HasBin(size_t allocation_size) const;
  // The bins, smallest first, each with a new reference.
  std::vector<ResourceRef> Bins() const;

 private:
  // An immutable snapshot of the bins, sorted by size: readers take it without a lock.
  struct BinTable {
    std::vector<size_t> sizes;
    std::vector<rmmjs_resource*> resources;
  };

  rmmjs_resource* ResourceFor(size_t bytes) const {
    const BinTable& table = *table_.load(std::memory_order_acquire);
    const size_t* sizes = table.sizes.data();
    size_t low = 0;
    size_t high = table.sizes.size();
    while (low < high) {  // the first bin whose size is >= bytes
      size_t mid = (low + high) / 2;
      if (sizes[mid] < bytes)
        low = mid + 1;
      else
        high = mid;
    }
    return low < table.sizes.size() ? table.resources[low] : upstream_.get();
  }

  struct Served {
    rmmjs_resource* mr = nullptr;
    size_t bytes = 0;
  };
  rmmjs_status Remember(rmmjs_resource* mr, size_t bytes, rmmjs_stream stream, void** out);
  [[gnu::cold]] static rmmjs_status NotHandedOut(void* ptr, size_t bytes, const char* why);

  ResourceRef upstream_;
  ShardedPointerTable<Served> served_by_;  // every allocation handed out: where it came from, its size
  mutable std::mutex mutex_;               // serialises AddBin
  std::vector<ResourceRef> bins_;          // owns the bins
  // Every table ever published stays alive until destruction (a reader may still hold one).
  std::vector<std::unique_ptr<BinTable>> tables_;
  std::atomic<const BinTable*> table_{nullptr};
};

}  // namespace rmmjs
