#include "limiting_resource_adaptor.h"

#include <new>
#include <string>

#include "rmmjs/format.hpp"
#include "rmmjs/status.hpp"

namespace rmmjs {

namespace {

size_t Reservation(size_t bytes) { return AlignUp(bytes, RMMJS_ALLOCATION_ALIGNMENT); }

uintptr_t Key(const void* ptr) { return reinterpret_cast<uintptr_t>(ptr); }

}  // namespace

rmmjs_status LimitingResourceAdaptor::Allocate(size_t bytes, rmmjs_stream stream, void** out) {
  if (Reservation(bytes) < bytes || !Reserve(Reservation(bytes))) {
    return Fail(RMMJS_ERR_OUT_OF_MEMORY, "Exceeded memory limit (failed to allocate " + FormatBytes(bytes) + ")");
  }
  const rmmjs_core_api* api = CoreApi();
  rmmjs_status status = api->allocate(upstream_.get(), bytes, stream, out);
  if (status != RMMJS_OK) {
    BiasedLock::Guard guard(lock_);
    allocated_bytes_ -= Reservation(bytes);
    return status;
  }
  status = GuardHostMemory(kTypeName, [&] {
    // A pointer already recorded was freed behind this adaptor's back and handed out again.
    return Record(*out, bytes) ? RMMJS_OK
                               : Fail(RMMJS_ERR_LOGIC, "LimitingResourceAdaptor: pointer is already recorded");
  });
  if (status != RMMJS_OK) {
    api->deallocate(upstream_.get(), *out, bytes, stream);
    *out = nullptr;
  }
  return status;
}

rmmjs_status LimitingResourceAdaptor::Deallocate(void* ptr, size_t bytes, rmmjs_stream stream) {
  size_t allocated = 0;
  if (!Forget(ptr, &allocated)) {
    return Fail(RMMJS_ERR_LOGIC, "LimitingResourceAdaptor: cannot deallocate " + std::to_string(bytes) +
                                     " bytes at a pointer it did not allocate or already deallocated");
  }
  rmmjs_status status = CoreApi()->deallocate(upstream_.get(), ptr, allocated, stream);
  // Still allocated when the upstream failed to free it, unless the upstream says it is not its own.
  if (status != RMMJS_OK && status != RMMJS_ERR_LOGIC) Restore(ptr, allocated);
  return status;
}

size_t LimitingResourceAdaptor::allocated_bytes() const {
  BiasedLock::Guard guard(lock_);
  return allocated_bytes_;
}

bool LimitingResourceAdaptor::Reserve(size_t bytes) {
  BiasedLock::Guard guard(lock_);
  if (allocated_bytes_ > allocation_limit_ || bytes > allocation_limit_ - allocated_bytes_) return false;
  allocated_bytes_ += bytes;
  return true;
}

bool LimitingResourceAdaptor::Record(void* ptr, size_t bytes) {
  BiasedLock::Guard guard(lock_);
  bool recorded = false;
  try {
    recorded = live_.Insert(Key(ptr), bytes);
  } catch (...) {
    allocated_bytes_ -= Reservation(bytes);
    throw;
  }
  if (!recorded) allocated_bytes_ -= Reservation(bytes);
  return recorded;
}

bool LimitingResourceAdaptor::Forget(void* ptr, size_t* bytes) {
  BiasedLock::Guard guard(lock_);
  if (!live_.Take(Key(ptr), bytes)) return false;
  allocated_bytes_ -= Reservation(*bytes);
  return true;
}

bool LimitingResourceAdaptor::Restore(void* ptr, size_t bytes) {
  BiasedLock::Guard guard(lock_);
  try {
    if (!live_.Insert(Key(ptr), bytes)) return false;
  } catch (const std::bad_alloc&) {
    return false;
  }
  allocated_bytes_ += Reservation(bytes);
  return true;
}

}  // namespace rmmjs
