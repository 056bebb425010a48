// @rmmjs/callback's addon: create(allocate, deallocate).
#include "rmmjs/addon.hpp"
#include "callback_memory_resource.h"

namespace {

namespace js = rmmjs::js;

// create(allocate, deallocate): the functions are the package's wrappers (callback-memory-resource.ts).
Napi::Value Create(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsFunction() || !info[1].IsFunction()) {
    js::ThrowTypeError(env, "create(allocate, deallocate) expects two functions");
  }
  int32_t device = 0;
  js::Check(env, rmmjs::CoreApi()->get_current_device(&device));
  // Where the callbacks' memory lives is unknown: it may be either. Freeing runs JavaScript too, so
  // its buffers cannot be transferred to another thread.
  uint32_t flags = RMMJS_RESOURCE_DEVICE_ACCESSIBLE | RMMJS_RESOURCE_HOST_ACCESSIBLE | RMMJS_RESOURCE_CALLS_JS |
                   RMMJS_RESOURCE_THREAD_BOUND;
  return js::NewResourceHandle<rmmjs::CallbackMemoryResource>(env, device, flags, js::EnvironmentOf(info), info[0],
                                                              info[1]);
}

}  // namespace

RMMJS_JS_ADDON(rmmjs_callback, {"create", Create})
