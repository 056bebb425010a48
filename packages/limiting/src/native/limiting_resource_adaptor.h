// RMM's limiting_resource_adaptor: refuses allocations that would take the bytes it has handed
// out (each rounded up to 256) past a limit.
//
// Unlike RMM's, it remembers what it handed out, so that freeing memory it did not hand out (or
// freeing twice) is refused with RMMJS_ERR_LOGIC instead of moving the counter: the counter never
// wraps or drifts, and the limit means what it says.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>

#include "rmmjs/abi.h"
#include "rmmjs/biased_lock.hpp"
#include "rmmjs/pointer_table.hpp"
#include "rmmjs/resource.hpp"

namespace rmmjs {

class LimitingResourceAdaptor {
 public:
  static constexpr const char* kTypeName = "LimitingResourceAdaptor";

  LimitingResourceAdaptor(ResourceRef upstream, size_t allocation_limit)
      : upstream_(std::move(upstream)), allocation_limit_(allocation_limit) {}

  rmmjs_status Allocate(size_t bytes, rmmjs_stream stream, void** out);
  // Frees what was allocated at ptr (its size as allocated, whatever `bytes` says).
  rmmjs_status Deallocate(void* ptr, size_t bytes, rmmjs_stream stream);
  rmmjs_resource* Upstream() const { return upstream_.get(); }

  size_t allocated_bytes() const;
  size_t allocation_limit() const { return allocation_limit_; }

 private:
  // Counts bytes against the limit: false, and no change, when they do not fit under it.
  bool Reserve(size_t bytes);
  // Records an allocation (its reservation stands), or takes the reservation back when it cannot
  // be recorded: false then. May throw std::bad_alloc (the reservation is taken back first).
  bool Record(void* ptr, size_t bytes);
  // Removes an allocation's record and its reservation together: false when ptr has none.
  bool Forget(void* ptr, size_t* bytes);
  // Puts back what Forget removed (the upstream failed to free it), even over the limit: the
  // memory is still allocated. False, and no record, when there is no host memory for it.
  bool Restore(void* ptr, size_t bytes);

  ResourceRef upstream_;
  size_t allocation_limit_;
  // One lock for the counter and the records, taken three times a pair (reserve; record; forget),
  // never across the upstream's call. Biased: the thread that uses the adaptor alone
  // (JavaScript's) takes it without an atomic.
  mutable BiasedLock lock_;
  size_t allocated_bytes_ = 0;  // the reservations: over allocation_limit_ only after a Restore
  PointerTable<size_t> live_;   // pointer -> requested bytes
};

}  // namespace rmmjs
