// @rmmjs/tracking's addon: create(upstream, captureStacks), the queries, and the JavaScript
// stack capture function of each environment that loads it.
#include "call_stack.h"
#include "rmmjs/napi.hpp"
#include "tracking_resource_adaptor.h"

#ifndef RMMJS_RESOURCE_CALLS_JS  // ABI 1.1
#define RMMJS_RESOURCE_CALLS_JS 0x4u
#endif

namespace {

using rmmjs::TrackingResourceAdaptor;

TrackingResourceAdaptor& Adaptor(const Napi::CallbackInfo& info) {
  rmmjs_resource* mr = rmmjs::js::ResourceArg(info.Env(), info[0], "this");
  if (!rmmjs::IsA<TrackingResourceAdaptor>(mr)) rmmjs::js::ThrowTypeError(info.Env(), "not a TrackingResourceAdaptor");
  return rmmjs::ImplOf<TrackingResourceAdaptor>(mr);
}

// create(upstream, captureStacks)
Napi::Value Create(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  rmmjs_resource* upstream = rmmjs::js::ResourceArg(env, info[0], "upstream");
  bool capture_stacks = info[1].As<Napi::Boolean>().Value();
  // Capturing a JavaScript stack runs JavaScript (Error.prepareStackTrace included).
  uint32_t flags = upstream->flags | (capture_stacks ? RMMJS_RESOURCE_CALLS_JS : 0u);
  rmmjs_resource* mr = nullptr;
  rmmjs::js::Check(env, rmmjs::NewResource<TrackingResourceAdaptor>(upstream->device, flags, &mr,
                                                                     rmmjs::ResourceRef::Retain(upstream),
                                                                     capture_stacks));
  return rmmjs::js::WrapResource(env, mr);
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("init", Napi::Function::New(env, [](const Napi::CallbackInfo& info) { rmmjs::js::ReceiveCoreApi(info); }));
  exports.Set("setStackCapturer", Napi::Function::New(env, [](const Napi::CallbackInfo& info) {
    if (!info[0].IsFunction()) rmmjs::js::ThrowTypeError(info.Env(), "capture must be a function");
    rmmjs::CallStack::SetJsCapturer(info.Env(), info[0].As<Napi::Function>());
  }));
  exports.Set("create", Napi::Function::New(env, Create));
  exports.Set("allocatedBytes", Napi::Function::New(env, [](const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), static_cast<double>(Adaptor(info).allocated_bytes()));
  }));
  exports.Set("outstandingCount", Napi::Function::New(env, [](const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), static_cast<double>(Adaptor(info).outstanding_count()));
  }));
  exports.Set("outstandingAllocationsStr", Napi::Function::New(env, [](const Napi::CallbackInfo& info) {
    return Napi::String::New(info.Env(), Adaptor(info).outstanding_allocations_str());
  }));
  exports.Set("logOutstandingAllocations", Napi::Function::New(env, [](const Napi::CallbackInfo& info) {
    Adaptor(info).log_outstanding_allocations();
  }));
  return exports;
}

}  // namespace

NODE_API_MODULE(rmmjs_tracking, Init)
