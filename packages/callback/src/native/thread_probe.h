// Test support (not public API): allocations through a resource from threads that run no
// JavaScript, as a native library or a thread pool would make them.
#pragma once

#include <napi.h>

namespace rmmjs {

// allocateOnNativeThread(mr, nbytes) -> [status, message]: allocate and free on a new thread
// (the calling thread waits for it).
Napi::Value AllocateOnNativeThread(const Napi::CallbackInfo& info);
// allocateOnThreadPool(mr, nbytes) -> Promise<[status, message]>: the same on libuv's pool.
Napi::Value AllocateOnThreadPool(const Napi::CallbackInfo& info);

}  // namespace rmmjs
