#include "tracking_resource_adaptor.h"

#include <algorithm>
#include <sstream>
#include <tuple>
#include <vector>

#include "rmmjs/format.hpp"
#include "rmmjs/status.hpp"

namespace rmmjs {
rmmjs_status TrackingResourceAdaptor::Allocate(size_t bytes, rmmjs_stream stream, void** out) {
  const rmmjs_core_api* api = CoreApi();
  rmmjs_status status = api->allocate(upstream_.get(), bytes, stream, out);
  if (status != RMMJS_OK || *out == nullptr) return status;
  status = Track(*out, bytes);
  if (status != RMMJS_OK) {
    api->deallocate(upstream_.get(), *out, bytes, stream);  // RMM leaks it here
    *out = nullptr;
  }
  return status;
}

TrackingResourceAdaptor::~TrackingResourceAdaptor() {
  allocations_.ForEach([](uintptr_t, const AllocationRecord& record) { CallStack::Release(record.stack); });
}

rmmjs_status TrackingResourceAdaptor::Track(void* ptr, size_t bytes) {
  return GuardHostMemory(kTypeName, [&] {
    const AllocationRecord record{bytes, capture_stacks_ ? CallStack::Capture() : nullptr};
    bool inserted = false;
    try {
      inserted = allocations_.Insert(ptr, record);
    } catch (...) {
      CallStack::Release(record.stack);
      throw;
    }
    if (inserted) return RMMJS_OK;
    CallStack::Release(record.stack);
    // The upstream handed out an address that is still tracked: it was freed behind this
    // adaptor's back.
    return Fail(RMMJS_ERR_LOGIC, "pointer is already tracked");
  });
}

rmmjs_status TrackingResourceAdaptor::Deallocate(void* ptr, size_t bytes, rmmjs_stream stream) {
  AllocationRecord record;
  const bool tracked = allocations_.Take(ptr, &record);
  // As RMM: an untracked pointer still goes upstream; a wrong size is replaced by the size
  // that was allocated.
  if (!tracked) {
    LogAt(RMMJS_LOG_ERROR,
          "Deallocating a pointer that was not tracked. Ptr: " + FormatHex(reinterpret_cast<uintptr_t>(ptr)) + " [" +
              std::to_string(bytes) + "B], Current Num. Allocations: " + std::to_string(outstanding_count()));
  } else if (record.bytes != bytes) {
    LogAt(RMMJS_LOG_ERROR, "Alloc bytes (" + std::to_string(record.bytes) + ") and Dealloc bytes (" +
                               std::to_string(bytes) + ") do not match");
    bytes = record.bytes;
  }
  rmmjs_status status = CoreApi()->deallocate(upstream_.get(), ptr, bytes, stream);
  // The memory is still allocated when the upstream failed to free it, unless the upstream says
  // the pointer is not its own (a double free: no phantom allocation may stay behind).
  const bool still_allocated = tracked && status != RMMJS_OK && status != RMMJS_ERR_LOGIC;
  if (!(still_allocated && Restore(ptr, record))) CallStack::Release(record.stack);
  return status;
}

bool TrackingResourceAdaptor::Restore(void* ptr, const AllocationRecord& record) {
  try {
    return allocations_.Insert(ptr, record);
  } catch (const std::bad_alloc&) {
    return false;
  }
}

size_t TrackingResourceAdaptor::allocated_bytes() const { return allocations_.total_weight(); }

size_t TrackingResourceAdaptor::outstanding_count() const { return allocations_.size(); }

std::string TrackingResourceAdaptor::outstanding_allocations_str() const {
  // One consistent snapshot (all shards locked, in order), formatted after the locks are gone.
  std::vector<std::tuple<uintptr_t, size_t, CallStackRef>> allocations;
  allocations_.ForEach([&](uintptr_t ptr, const AllocationRecord& record) {
    allocations.emplace_back(ptr, record.bytes, CallStackRef(record.stack));
  });
  std::sort(allocations.begin(), allocations.end(),
            [](const auto& a, const auto& b) { return std::get<0>(a) < std::get<0>(b); });
  std::ostringstream out;
  CallStack::FrameNames names;
  for (const auto& [ptr, bytes, stack] : allocations) {
    out << FormatHex(ptr) << ": " << bytes << " B";
    if (stack.get() != nullptr) {
      out << " : callstack:\n";
      stack.get()->Print(out, names);
    }
    out << '\n';
  }
  return out.str();
}

void TrackingResourceAdaptor::log_outstanding_allocations() const {
  if (CoreApi()->should_log(RMMJS_LOG_DEBUG))
    LogAt(RMMJS_LOG_DEBUG, "Outstanding Allocations: " + outstanding_allocations_str());
}

}  // namespace rmmjs
