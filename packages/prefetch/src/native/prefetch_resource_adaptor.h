// RMM's prefetch_resource_adaptor: after each allocation, prefetches the memory to the
// resource's device on the allocation's stream, so managed memory is resident before the first
// kernel touches it. Memory that is not managed, and host mode, make the prefetch a no-op.
#pragma once

#include <cstddef>
#include <cstdint>

#include "rmmjs/abi.h"
#include "rmmjs/resource.hpp"

namespace rmmjs {

class PrefetchResourceAdaptor {
 public:
  static constexpr const char* kTypeName = "PrefetchResourceAdaptor";

  explicit PrefetchResourceAdaptor(ResourceRef upstream)
      : upstream_(std::move(upstream)), device_(upstream_.get()->device) {}

  // Decides whether allocations of the upstream are worth prefetching: not in host mode, not on
  // a device without concurrent managed access (rmm::prefetch returns early there), and not when
  // the upstream says its memory is device-only (managed memory is host-accessible), which saves
  // every allocation a driver query that would only find the memory is not managed.
  rmmjs_status Init(rmmjs_resource* self);
  rmmjs_status Allocate(size_t bytes, rmmjs_stream stream, void** out);
  rmmjs_status Deallocate(void* ptr, size_t bytes, rmmjs_stream stream) {
    return CoreApi()->deallocate(upstream_.get(), ptr, bytes, stream);
  }
  rmmjs_resource* Upstream() const { return upstream_.get(); }

 private:
  rmmjs_status Prefetch(void* ptr, size_t bytes, rmmjs_stream stream) const;

  ResourceRef upstream_;
  int32_t device_;
  bool prefetch_ = false;
};

}  // namespace rmmjs
