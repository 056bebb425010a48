// nativeThreadsWorkload(mr, threads, iterations, minBytes, maxBytes, maxLive, seed, check): native
// threads (std::thread, no JavaScript) allocating and freeing through the C ABI at once, for the
// tests (with check: every block is filled with its own pattern on allocation and compared when
// freed, so overlapping blocks are caught) and the thread-scaling benchmark (without check).
// Returns { operations, seconds, mismatches, errors }.
#pragma once

#include <napi.h>

namespace rmmjs::arena {

Napi::Value NativeThreadsWorkload(const Napi::CallbackInfo& info);

}  // namespace rmmjs::arena
