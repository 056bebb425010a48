// Small helpers for the arena's synchronisation (all no-ops in host mode).
#pragma once

#include <cstdint>

#include "rmmjs/abi.h"
#include "rmmjs/resource.hpp"

namespace rmmjs::arena {

using rmmjs::DeviceContext;  // from rmmjs/resource.hpp

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
