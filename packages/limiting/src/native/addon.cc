// @rmmjs/limiting's addon: create(upstream, limit) and the counters.
#include "limiting_resource_adaptor.h"
#include "rmmjs/napi.hpp"

namespace {

using rmmjs::LimitingResourceAdaptor;

LimitingResourceAdaptor& Adaptor(const Napi::CallbackInfo& info) {
  rmmjs_resource* mr = rmmjs::js::ResourceArg(info.Env(), info[0], "this");
  if (!rmmjs::IsA<LimitingResourceAdaptor>(mr)) rmmjs::js::ThrowTypeError(info.Env(), "not a LimitingResourceAdaptor");
  return rmmjs::ImplOf<LimitingResourceAdaptor>(mr);
}

// create(upstream, allocationLimit)
Napi::Value Create(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  rmmjs_resource* upstream = rmmjs::js::ResourceArg(env, info[0], "upstream");
  auto limit = static_cast<size_t>(info[1].As<Napi::Number>().DoubleValue());
  rmmjs_resource* mr = nullptr;
  rmmjs::js::Check(env, rmmjs::NewResource<LimitingResourceAdaptor>(upstream->device, upstream->flags, &mr,
                                                                     rmmjs::ResourceRef::Retain(upstream), limit));
  return rmmjs::js::WrapResource(env, mr);
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("init", Napi::Function::New(env, [](const Napi::CallbackInfo& info) { rmmjs::js::ReceiveCoreApi(info); }));
  exports.Set("create", Napi::Function::New(env, Create));
  exports.Set("allocatedBytes", Napi::Function::New(env, [](const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), static_cast<double>(Adaptor(info).allocated_bytes()));
  }));
  exports.Set("allocationLimit", Napi::Function::New(env, [](const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), static_cast<double>(Adaptor(info).allocation_limit()));
  }));
  return exports;
}

}  // namespace

NODE_API_MODULE(rmmjs_limiting, Init)
