// @rmmjs/limiting's addon: create(upstream, limit) and the counters.
#include "rmmjs/addon.hpp"
#include "limiting_resource_adaptor.h"

namespace {

using rmmjs::LimitingResourceAdaptor;
namespace js = rmmjs::js;

// create(upstream, allocationLimit)
Napi::Value Create(const Napi::CallbackInfo& info) {
  return js::CreateAdaptor<LimitingResourceAdaptor>(info, 0, js::SizeArg(info[1]));
}

Napi::Value AllocatedBytes(const Napi::CallbackInfo& info) {
  return js::SizeValue(info.Env(), js::Self<LimitingResourceAdaptor>(info).allocated_bytes());
}

Napi::Value AllocationLimit(const Napi::CallbackInfo& info) {
  return js::SizeValue(info.Env(), js::Self<LimitingResourceAdaptor>(info).allocation_limit());
}

}  // namespace

RMMJS_ADDON(rmmjs_limiting, {"create", Create}, {"allocatedBytes", AllocatedBytes},
            {"allocationLimit", AllocationLimit})
