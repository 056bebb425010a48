#include "limiting_resource_adaptor.h"

#include <new>
#include <string>

#include "rmmjs/format.hpp"
#include "rmmjs/status.hpp"

namespace rmmjs {

rmmjs_status LimitingResourceAdaptor::Allocate(size_t bytes, rmmjs_stream stream, void** out) {
  size_t proposed = AlignUp(bytes, RMMJS_ALLOCATION_ALIGNMENT);
  if (proposed < bytes || !Reserve(proposed)) {
    return Fail(RMMJS_ERR_OUT_OF_MEMORY, "Exceeded memory limit (failed to allocate " + FormatBytes(bytes) + ")");
  }
  const rmmjs_core_api* api = CoreApi();
  rmmjs_status status = api->allocate(upstream_.get(), bytes, stream, out);
  if (status == RMMJS_OK) {
    status = GuardHostMemory(kTypeName, [&] {
      // A pointer already recorded was freed behind this adaptor's back and handed out again.
      return live_.Insert(*out, bytes) ? RMMJS_OK
                                       : Fail(RMMJS_ERR_LOGIC, "LimitingResourceAdaptor: pointer is already recorded");
    });
    if (status != RMMJS_OK) {
      api->deallocate(upstream_.get(), *out, bytes, stream);
      *out = nullptr;
    }
  }
  if (status != RMMJS_OK) Unreserve(proposed);  // roll back
  return status;
}

rmmjs_status LimitingResourceAdaptor::Deallocate(void* ptr, size_t bytes, rmmjs_stream stream) {
  size_t allocated = 0;
  if (!live_.Take(ptr, &allocated)) {
    return Fail(RMMJS_ERR_LOGIC, "LimitingResourceAdaptor: cannot deallocate " + std::to_string(bytes) +
                                     " bytes at a pointer it did not allocate or already deallocated");
  }
  rmmjs_status status = CoreApi()->deallocate(upstream_.get(), ptr, allocated, stream);
  // Still allocated when the upstream failed to free it, unless the upstream says it is not its own.
  if (status != RMMJS_OK && status != RMMJS_ERR_LOGIC && Record(ptr, allocated)) return status;
  Unreserve(AlignUp(allocated, RMMJS_ALLOCATION_ALIGNMENT));
  return status;
}

bool LimitingResourceAdaptor::Reserve(size_t bytes) {
  std::lock_guard<BiasedLock> guard(lock_);
  if (bytes > allocation_limit_ - allocated_bytes_) return false;
  allocated_bytes_ += bytes;
  return true;
}

void LimitingResourceAdaptor::Unreserve(size_t bytes) {
  std::lock_guard<BiasedLock> guard(lock_);
  allocated_bytes_ -= bytes;
}

// Puts a record back (no error is set: the caller reports its own).
bool LimitingResourceAdaptor::Record(void* ptr, size_t bytes) {
  try {
    return live_.Insert(ptr, bytes);
  } catch (const std::bad_alloc&) {
    return false;
  }
}

}  // namespace rmmjs
