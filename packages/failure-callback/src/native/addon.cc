// @rmmjs/failure-callback's addon: create(upstream, onFailure).
#include "rmmjs/addon.hpp"
#include "failure_callback_resource_adaptor.h"

namespace {

namespace js = rmmjs::js;

// create(upstream, onFailure): onFailure is the package's wrapper of the callback
// (failure-callback-resource-adaptor.ts).
Napi::Value Create(const Napi::CallbackInfo& info) {
  if (!info[1].IsFunction()) js::ThrowTypeError(info.Env(), "create(upstream, onFailure) expects a function");
  return js::CreateAdaptor<rmmjs::FailureCallbackResourceAdaptor>(info, RMMJS_RESOURCE_CALLS_JS,
                                                                  js::EnvironmentOf(info), info[1]);
}

}  // namespace

RMMJS_JS_ADDON(rmmjs_failure_callback, {"create", Create})
