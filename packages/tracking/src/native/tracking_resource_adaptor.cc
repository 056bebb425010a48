#include "tracking_resource_adaptor.h"

#include <algorithm>
#include <mutex>
#include <sstream>
#include <tuple>
#include <vector>

#include "rmmjs/format.hpp"
#include "rmmjs/status.hpp"

namespace rmmjs {
namespace {

constexpr auto kRelaxed = std::memory_order_relaxed;

}  // namespace

rmmjs_status TrackingResourceAdaptor::Allocate(size_t bytes, rmmjs_stream stream, void** out) {
  const rmmjs_core_api* api = CoreApi();
  rmmjs_status status = api->allocate(upstream_.get(), bytes, stream, out);
  if (status != RMMJS_OK || *out == nullptr) return status;
  status = Track(reinterpret_cast<uintptr_t>(*out), bytes);
  if (status != RMMJS_OK) {
    api->deallocate(upstream_.get(), *out, bytes, stream);  // RMM leaks it here
    *out = nullptr;
  }
  return status;
}

rmmjs_status TrackingResourceAdaptor::Track(uintptr_t ptr, size_t bytes) {
  Shard& shard = ShardOf(ptr);
  return GuardHostMemory(kTypeName, [&] {
    AllocationRecord record{bytes, capture_stacks_ ? CallStack::Capture() : nullptr};
    std::lock_guard<SpinLock> guard(shard.lock);
    if (shard.table.Insert(ptr, std::move(record))) {
      shard.bytes.store(shard.bytes.load(kRelaxed) + bytes, kRelaxed);
      return RMMJS_OK;
    }
    // The upstream handed out an address that is still tracked: it was freed behind this
    // adaptor's back.
    return Fail(RMMJS_ERR_LOGIC, "pointer is already tracked");
  });
}

rmmjs_status TrackingResourceAdaptor::Deallocate(void* ptr, size_t bytes, rmmjs_stream stream) {
  auto key = reinterpret_cast<uintptr_t>(ptr);
  Shard& shard = ShardOf(key);
  AllocationRecord record;
  bool tracked = false;
  {
    std::lock_guard<SpinLock> guard(shard.lock);
    tracked = shard.table.Take(key, &record);
    if (tracked) shard.bytes.store(shard.bytes.load(kRelaxed) - record.bytes, kRelaxed);
  }
  // As RMM: an untracked pointer still goes upstream; a wrong size is replaced by the size
  // that was allocated.
  if (!tracked) {
    LogAt(RMMJS_LOG_ERROR, "Deallocating a pointer that was not tracked. Ptr: " + FormatHex(key) + " [" +
                               std::to_string(bytes) +
                               "B], Current Num. Allocations: " + std::to_string(outstanding_count()));
  } else if (record.bytes != bytes) {
    LogAt(RMMJS_LOG_ERROR, "Alloc bytes (" + std::to_string(record.bytes) + ") and Dealloc bytes (" +
                               std::to_string(bytes) + ") do not match");
    bytes = record.bytes;
  }
  rmmjs_status status = CoreApi()->deallocate(upstream_.get(), ptr, bytes, stream);
  // The memory is still allocated when the upstream failed to free it, unless the upstream says
  // the pointer is not its own (a double free: no phantom allocation may stay behind).
  if (tracked && status != RMMJS_OK && status != RMMJS_ERR_LOGIC) Restore(key, std::move(record));
  return status;
}

bool TrackingResourceAdaptor::Restore(uintptr_t ptr, AllocationRecord&& record) {
  Shard& shard = ShardOf(ptr);
  size_t bytes = record.bytes;
  try {
    std::lock_guard<SpinLock> guard(shard.lock);
    if (!shard.table.Insert(ptr, std::move(record))) return false;
    shard.bytes.store(shard.bytes.load(kRelaxed) + bytes, kRelaxed);
    return true;
  } catch (const std::bad_alloc&) {
    return false;
  }
}

size_t TrackingResourceAdaptor::allocated_bytes() const {
  size_t total = 0;
  for (const Shard& shard : shards_) total += shard.bytes.load(kRelaxed);
  return total;
}

size_t TrackingResourceAdaptor::outstanding_count() const {
  size_t total = 0;
  for (const Shard& shard : shards_) {
    std::lock_guard<SpinLock> guard(shard.lock);
    total += shard.table.size();
  }
  return total;
}

std::string TrackingResourceAdaptor::outstanding_allocations_str() const {
  // One consistent snapshot (all shards locked, in order), formatted after the locks are gone.
  std::vector<std::tuple<uintptr_t, size_t, std::shared_ptr<const CallStack>>> allocations;
  {
    std::vector<std::unique_lock<SpinLock>> guards;
    guards.reserve(kShards);
    for (const Shard& shard : shards_) guards.emplace_back(shard.lock);
    for (const Shard& shard : shards_) {
      shard.table.ForEach([&](uintptr_t ptr, const AllocationRecord& record) {
        allocations.emplace_back(ptr, record.bytes, record.stack);
      });
    }
  }
  std::sort(allocations.begin(), allocations.end(),
            [](const auto& a, const auto& b) { return std::get<0>(a) < std::get<0>(b); });
  std::ostringstream out;
  for (const auto& [ptr, bytes, stack] : allocations) {
    out << FormatHex(ptr) << ": " << bytes << " B";
    if (stack != nullptr) out << " : callstack:\n" << *stack;
    out << '\n';
  }
  return out.str();
}

void TrackingResourceAdaptor::log_outstanding_allocations() const {
  if (CoreApi()->should_log(RMMJS_LOG_DEBUG))
    LogAt(RMMJS_LOG_DEBUG, "Outstanding Allocations: " + outstanding_allocations_str());
}

}  // namespace rmmjs
