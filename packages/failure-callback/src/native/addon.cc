// @rmmjs/failure-callback's addon: create(upstream, onFailure) and the exception bridge's setup.
#include <memory>

#include "failure_callback_resource_adaptor.h"
#include "rmmjs/js_environment.hpp"
#include "rmmjs/napi.hpp"

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

// create(upstream, onFailure): onFailure is the package's wrapper of the callback (index.ts).
Napi::Value Create(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  rmmjs_resource* upstream = rmmjs::js::ResourceArg(env, info[0], "upstream");
  if (!info[1].IsFunction()) rmmjs::js::ThrowTypeError(env, "create(upstream, onFailure) expects a function");
  rmmjs_resource* mr = nullptr;
  rmmjs::js::Check(env, rmmjs::NewResource<rmmjs::FailureCallbackResourceAdaptor>(
                            upstream->device, upstream->flags | RMMJS_RESOURCE_CALLS_JS, &mr, rmmjs::ResourceRef::Retain(upstream),
                            EnvironmentOf(info), info[1]));
  return rmmjs::js::WrapResource(env, mr);
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  void* environment = JsEnvironment::Install(env);
  exports.Set("init", Napi::Function::New(env, [](const Napi::CallbackInfo& info) { rmmjs::js::ReceiveCoreApi(info); }));
  exports.Set("setup", Napi::Function::New(env, Setup, "setup", environment));
  exports.Set("create", Napi::Function::New(env, Create, "create", environment));
  return exports;
}

}  // namespace

NODE_API_MODULE(rmmjs_failure_callback, Init)
