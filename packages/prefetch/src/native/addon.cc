// @rmmjs/prefetch's addon: create(upstream).
#include "prefetch_resource_adaptor.h"
#include "rmmjs/napi.hpp"

namespace {

using rmmjs::PrefetchResourceAdaptor;

// create(upstream)
Napi::Value Create(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  rmmjs_resource* upstream = rmmjs::js::ResourceArg(env, info[0], "upstream");
  bool prefetch = false;
  rmmjs::js::Check(env, rmmjs::WorthPrefetching(upstream, &prefetch));
  rmmjs_resource* mr = nullptr;
  rmmjs::js::Check(env, rmmjs::NewResource<PrefetchResourceAdaptor>(upstream->device, upstream->flags, &mr,
                                                                     rmmjs::ResourceRef::Retain(upstream), prefetch));
  return rmmjs::js::WrapResource(env, mr);
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("init", Napi::Function::New(env, [](const Napi::CallbackInfo& info) { rmmjs::js::ReceiveCoreApi(info); }));
  exports.Set("create", Napi::Function::New(env, Create));
  return exports;
}

}  // namespace

NODE_API_MODULE(rmmjs_prefetch, Init)
