// @rmmjs/prefetch's addon: create(upstream).
#include "rmmjs/addon.hpp"
#include "prefetch_resource_adaptor.h"

namespace {

Napi::Value Create(const Napi::CallbackInfo& info) {
  return rmmjs::js::CreateAdaptor<rmmjs::PrefetchResourceAdaptor>(info, 0);
}

}  // namespace

RMMJS_ADDON(rmmjs_prefetch, {"create", Create})
