// @rmmjs/callback's addon: create(allocate, deallocate), the exception bridge's setup, and two
// test probes that allocate from threads running no JavaScript.
#include <memory>

#include "callback_memory_resource.h"
#include "rmmjs/js_environment.hpp"
#include "rmmjs/napi.hpp"
#include "thread_probe.h"

namespace {

using rmmjs::JsEnvironment;

std::shared_ptr<JsEnvironment>& EnvironmentOf(const Napi::CallbackInfo& info) {
  return *static_cast<std::shared_ptr<JsEnvironment>*>(info.Data());
}

// setup(holdError): the function JsEnvironment hands caught exceptions to.
Napi::Value Setup(const Napi::CallbackInfo& info) {
  if (!info[0].IsFunction()) rmmjs::js::ThrowTypeError(info.Env(), "setup(holdError) expects a function");
  EnvironmentOf(info)->SetExceptionSink(info[0]);
  return info.Env().Undefined();
}

// create(allocate, deallocate): the functions are the package's wrappers (index.ts).
Napi::Value Create(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsFunction() || !info[1].IsFunction()) {
    rmmjs::js::ThrowTypeError(env, "create(allocate, deallocate) expects two functions");
  }
  int32_t device = 0;
  rmmjs::js::Check(env, rmmjs::CoreApi()->get_current_device(&device));
  rmmjs_resource* mr = nullptr;
  rmmjs::js::Check(env, rmmjs::NewResource<rmmjs::CallbackMemoryResource>(
                            // Where the callbacks' memory lives is unknown: it may be either.
                            device, RMMJS_RESOURCE_DEVICE_ACCESSIBLE | RMMJS_RESOURCE_HOST_ACCESSIBLE | RMMJS_RESOURCE_CALLS_JS, &mr,
                            EnvironmentOf(info), info[0], info[1]));
  return rmmjs::js::WrapResource(env, mr);
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  void* environment = JsEnvironment::Install(env);
  exports.Set("init", Napi::Function::New(env, [](const Napi::CallbackInfo& info) { rmmjs::js::ReceiveCoreApi(info); }));
  exports.Set("setup", Napi::Function::New(env, Setup, "setup", environment));
  exports.Set("create", Napi::Function::New(env, Create, "create", environment));
  exports.Set("allocateOnNativeThread", Napi::Function::New(env, rmmjs::AllocateOnNativeThread));
  exports.Set("allocateOnThreadPool", Napi::Function::New(env, rmmjs::AllocateOnThreadPool));
  return exports;
}

}  // namespace

NODE_API_MODULE(rmmjs_callback, Init)
