// Small helpers over core's API table for the arena's synchronisation (all no-ops in host mode).
#pragma once

#include <cstdint>

#include "rmmjs/abi.h"
#include "rmmjs/resource.hpp"

namespace rmmjs::arena {

// Makes a device's primary context current for a scope (stream 0 and events mean its context).
class DeviceContext {
 public:
  explicit DeviceContext(int32_t device) : status_(CoreApi()->context_push(device, &saved_)) {}
  ~DeviceContext() {
    if (status_ == RMMJS_OK) CoreApi()->context_restore(saved_);
  }
  DeviceContext(const DeviceContext&) = delete;
  DeviceContext& operator=(const DeviceContext&) = delete;
  rmmjs_status status() const { return status_; }

 private:
  void* saved_ = nullptr;
  rmmjs_status status_;
};

// The legacy default stream (0 and CU_STREAM_LEGACY): one stream for every thread of a context.
inline bool IsLegacyDefaultStream(rmmjs_stream stream) { return stream == 0 || stream == 1; }

// 0, CU_STREAM_LEGACY and CU_STREAM_PER_THREAD: served by the calling thread's arena.
inline bool IsDefaultStream(rmmjs_stream stream) { return stream <= 2; }

}  // namespace rmmjs::arena

// Returns the status of expr when it is not RMMJS_OK.
#define RMMJS_ARENA_TRY(expr)                                         \
  do {                                                                \
    rmmjs_status rmmjs_arena_status_ = (expr);                        \
    if (rmmjs_arena_status_ != RMMJS_OK) return rmmjs_arena_status_; \
  } while (0)
