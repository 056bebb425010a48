// RMM's limiting_resource_adaptor: refuses allocations that would take the bytes it has handed
// out (each rounded up to 256) past a limit.
#pragma once

#include <atomic>
#include <cstddef>

#include "rmmjs/abi.h"
#include "rmmjs/resource.hpp"

namespace rmmjs {

class LimitingResourceAdaptor {
 public:
  static constexpr const char* kTypeName = "LimitingResourceAdaptor";

  LimitingResourceAdaptor(ResourceRef upstream, size_t allocation_limit)
      : upstream_(std::move(upstream)), allocation_limit_(allocation_limit) {}

  rmmjs_status Allocate(size_t bytes, rmmjs_stream stream, void** out);
  rmmjs_status Deallocate(void* ptr, size_t bytes, rmmjs_stream stream);
  rmmjs_resource* Upstream() const { return upstream_.get(); }

  size_t allocated_bytes() const { return allocated_bytes_.load(std::memory_order_relaxed); }
  size_t allocation_limit() const { return allocation_limit_; }

 private:
  ResourceRef upstream_;
  size_t allocation_limit_;
  std::atomic<size_t> allocated_bytes_{0};
};

}  // namespace rmmjs
