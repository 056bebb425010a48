// @rmmjs/tracking's addon: create(upstream, captureStacks), the queries, and the JavaScript
// stack capture function of each environment that loads it.
#include "rmmjs/addon.hpp"
#include "call_stack.h"
#include "tracking_resource_adaptor.h"

namespace {

using rmmjs::TrackingResourceAdaptor;
namespace js = rmmjs::js;

// create(upstream, captureStacks)
Napi::Value Create(const Napi::CallbackInfo& info) {
  bool capture_stacks = info[1].As<Napi::Boolean>().Value();
  // Capturing a JavaScript stack runs JavaScript (Error.prepareStackTrace included).
  return js::CreateAdaptor<TrackingResourceAdaptor>(info, capture_stacks ? RMMJS_RESOURCE_CALLS_JS : 0u,
                                                    capture_stacks);
}

// setStackCapturer(capture): this environment's capture function (src/tracking-resource-adaptor.ts).
Napi::Value SetStackCapturer(const Napi::CallbackInfo& info) {
  if (!info[0].IsFunction()) js::ThrowTypeError(info.Env(), "capture must be a function");
  rmmjs::CallStack::SetJsCapturer(info.Env(), info[0].As<Napi::Function>());
  return info.Env().Undefined();
}

Napi::Value AllocatedBytes(const Napi::CallbackInfo& info) {
  return js::SizeValue(info.Env(), js::Self<TrackingResourceAdaptor>(info).allocated_bytes());
}

Napi::Value OutstandingCount(const Napi::CallbackInfo& info) {
  return js::SizeValue(info.Env(), js::Self<TrackingResourceAdaptor>(info).outstanding_count());
}

Napi::Value OutstandingAllocationsStr(const Napi::CallbackInfo& info) {
  return Napi::String::New(info.Env(), js::Self<TrackingResourceAdaptor>(info).outstanding_allocations_str());
}

Napi::Value LogOutstandingAllocations(const Napi::CallbackInfo& info) {
  js::Self<TrackingResourceAdaptor>(info).log_outstanding_allocations();
  return info.Env().Undefined();
}

}  // namespace

RMMJS_ADDON(rmmjs_tracking, {"create", Create}, {"setStackCapturer", SetStackCapturer},
            {"allocatedBytes", AllocatedBytes}, {"outstandingCount", OutstandingCount},
            {"outstandingAllocationsStr", OutstandingAllocationsStr},
            {"logOutstandingAllocations", LogOutstandingAllocations})
