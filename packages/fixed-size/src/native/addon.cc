// @rmmjs/fixed-size's addon: create(upstream, blockSize, blocksToPreallocate) and blockSize(mr).
#include <string>

#include "fixed_size_memory_resource.h"
#include "rmmjs/format.hpp"
#include "rmmjs/napi.hpp"

namespace {

using rmmjs::FixedSizeMemoryResource;

FixedSizeMemoryResource& Resource(const Napi::CallbackInfo& info) {
  rmmjs_resource* mr = rmmjs::js::ResourceArg(info.Env(), info[0], "this");
  if (!rmmjs::IsA<FixedSizeMemoryResource>(mr)) rmmjs::js::ThrowTypeError(info.Env(), "not a FixedSizeMemoryResource");
  return rmmjs::ImplOf<FixedSizeMemoryResource>(mr);
}

[[noreturn]] void ThrowOutOfRange(Napi::Env env, const std::string& message) {
  throw Napi::Error(env, rmmjs::js::MakeError(env, RMMJS_ERR_OUT_OF_RANGE, message));
}

// create(upstream, blockSize, blocksToPreallocate): the numbers were validated in JavaScript;
// what would break the resource (zero, an overflowing chunk) is checked again here.
Napi::Value Create(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  rmmjs_resource* upstream = rmmjs::js::ResourceArg(env, info[0], "upstream");
  auto block_size = static_cast<size_t>(info[1].As<Napi::Number>().DoubleValue());
  auto blocks = static_cast<size_t>(info[2].As<Napi::Number>().DoubleValue());
  size_t chunk = 0;
  if (block_size == 0) ThrowOutOfRange(env, "blockSize must be at least 1 byte");
  if (blocks == 0) ThrowOutOfRange(env, "blocksToPreallocate must be at least 1");
  if (block_size > SIZE_MAX - 255 ||
      __builtin_mul_overflow(rmmjs::AlignUp(block_size, RMMJS_ALLOCATION_ALIGNMENT), blocks, &chunk)) {
    ThrowOutOfRange(env, "blockSize * blocksToPreallocate does not fit in a size_t");
  }
  rmmjs_resource* mr = nullptr;
  rmmjs::js::Check(env, rmmjs::NewResource<FixedSizeMemoryResource>(upstream->device, upstream->flags, &mr,
                                                                     rmmjs::ResourceRef::Retain(upstream),
                                                                     upstream->device, block_size, blocks));
  return rmmjs::js::WrapResource(env, mr);
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("init", Napi::Function::New(env, [](const Napi::CallbackInfo& info) { rmmjs::js::ReceiveCoreApi(info); }));
  exports.Set("create", Napi::Function::New(env, Create));
  exports.Set("blockSize", Napi::Function::New(env, [](const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), static_cast<double>(Resource(info).block_size()));
  }));
  return exports;
}

}  // namespace

NODE_API_MODULE(rmmjs_fixed_size, Init)
