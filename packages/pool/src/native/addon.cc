// @rmmjs/pool's addon: create(upstream, initialPoolSize?, maximumPoolSize?) and poolSize(mr).
#include "pool_memory_resource.h"
#include "rmmjs/napi.hpp"

namespace {

using rmmjs::PoolMemoryResource;

PoolMemoryResource& Pool(const Napi::CallbackInfo& info) {
  rmmjs_resource* mr = rmmjs::js::ResourceArg(info.Env(), info[0], "this");
  if (!rmmjs::IsA<PoolMemoryResource>(mr)) rmmjs::js::ThrowTypeError(info.Env(), "not a PoolMemoryResource");
  return rmmjs::ImplOf<PoolMemoryResource>(mr);
}

// A size validated in JavaScript (a safe integer), or `absent` for undefined.
size_t SizeArg(const Napi::Value& value, size_t absent) {
  return value.IsUndefined() ? absent : static_cast<size_t>(value.As<Napi::Number>().DoubleValue());
}

// create(upstream, initialPoolSize | undefined, maximumPoolSize | undefined)
Napi::Value Create(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  rmmjs_resource* upstream = rmmjs::js::ResourceArg(env, info[0], "upstream");
  const size_t maximum = SizeArg(info[2], PoolMemoryResource::kNoMaximum);
  size_t initial = SizeArg(info[1], 0);
  rmmjs::js::Check(env, PoolMemoryResource::Validate(initial, maximum));
  if (info[1].IsUndefined()) {
    rmmjs::js::Check(env, PoolMemoryResource::DefaultInitialPoolSize(upstream->device, maximum, &initial));
  }
  rmmjs_resource* mr = nullptr;
  rmmjs::js::Check(env, rmmjs::NewResource<PoolMemoryResource>(upstream->device, upstream->flags, &mr,
                                                               rmmjs::ResourceRef::Retain(upstream),
                                                               upstream->device, initial, maximum));
  return rmmjs::js::WrapResource(env, mr);
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("init", Napi::Function::New(env, [](const Napi::CallbackInfo& info) { rmmjs::js::ReceiveCoreApi(info); }));
  exports.Set("create", Napi::Function::New(env, Create));
  exports.Set("poolSize", Napi::Function::New(env, [](const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), static_cast<double>(Pool(info).pool_size()));
  }));
  return exports;
}

}  // namespace

NODE_API_MODULE(rmmjs_pool, Init)
