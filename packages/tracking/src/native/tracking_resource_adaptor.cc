#include "tracking_resource_adaptor.h"

#include <algorithm>
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
  status = Track(*out, bytes);
  if (status != RMMJS_OK) {
    api->deallocate(upstream_.get(), *out, bytes, stream);  // RMM leaks it here
    *out = nullptr;
  }
  return status;
}

rmmjs_status TrackingResourceAdaptor::Track(void* ptr, size_t bytes) {
  return GuardHostMemory(kTypeName, [&] {
    AllocationRecord record{bytes, capture_stacks_ ? CallStack::Capture() : nullptr};
    allocated_bytes_.fetch_add(bytes, kRelaxed);
    bool inserted = false;
    try {
      inserted = allocations_.Insert(ptr, std::move(record));
    } catch (...) {
      allocated_bytes_.fetch_sub(bytes, kRelaxed);
      throw;
    }
    if (inserted) return RMMJS_OK;
    allocated_bytes_.fetch_sub(bytes, kRelaxed);
    // The upstream handed out an address that is still tracked: it was freed behind this
    // adaptor's back.
    return Fail(RMMJS_ERR_LOGIC, "pointer is already tracked");
  });
}

rmmjs_status TrackingResourceAdaptor::Deallocate(void* ptr, size_t bytes, rmmjs_stream stream) {
  AllocationRecord record;
  const bool tracked = allocations_.Take(ptr, &record);
  if (tracked) allocated_bytes_.fetch_sub(record.bytes, kRelaxed);
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
  if (tracked && status != RMMJS_OK && status != RMMJS_ERR_LOGIC) Restore(ptr, std::move(record));
  return status;
}

bool TrackingResourceAdaptor::Restore(void* ptr, AllocationRecord&& record) {
  const size_t bytes = record.bytes;
  allocated_bytes_.fetch_add(bytes, kRelaxed);
  try {
    if (allocations_.Insert(ptr, std::move(record))) return true;
  } catch (const std::bad_alloc&) {
  }
  allocated_bytes_.fetch_sub(bytes, kRelaxed);
  return false;
}

size_t TrackingResourceAdaptor::allocated_bytes() const { return allocated_bytes_.load(kRelaxed); }

size_t TrackingResourceAdaptor::outstanding_count() const { return allocations_.size(); }

std::string TrackingResourceAdaptor::outstanding_allocations_str() const {
  // One consistent snapshot (all shards locked, in order), formatted after the locks are gone.
  std::vector<std::tuple<uintptr_t, size_t, std::shared_ptr<const CallStack>>> allocations;
  allocations_.ForEach([&](uintptr_t ptr, const AllocationRecord& record) {
    allocations.emplace_back(ptr, record.bytes, record.stack);
  });
  std::sort(allocations.begin(), allocations.end(),
            [](const auto& a, const auto& b) { return std::get<0>(a) < std::get<0>(b); });
  std::ostringstream out;
  CallStack::FrameNames names;
  for (const auto& [ptr, bytes, stack] : allocations) {
    out << FormatHex(ptr) << ": " << bytes << " B";
    if (stack != nullptr) {
      out << " : callstack:\n";
      stack->Print(out, names);
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
