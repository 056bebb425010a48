// @rmmjs/binning's addon: create(upstream), addBin(mr, size, bin), hasBin(mr, size), bins(mr).
#include <new>

#include "binning_memory_resource.h"
#include "rmmjs/napi.hpp"

namespace {

using rmmjs::BinningMemoryResource;

BinningMemoryResource& Resource(const Napi::CallbackInfo& info) {
  rmmjs_resource* mr = rmmjs::js::ResourceArg(info.Env(), info[0], "this");
  if (!rmmjs::IsA<BinningMemoryResource>(mr)) rmmjs::js::ThrowTypeError(info.Env(), "not a BinningMemoryResource");
  return rmmjs::ImplOf<BinningMemoryResource>(mr);
}

// Whether `from` allocates from `target` (is it, or reaches it through upstreams or bins).
bool Reaches(const rmmjs_resource* from, const rmmjs_resource* target) {
  for (const rmmjs_resource* mr = from; mr != nullptr;
       mr = mr->ops->get_upstream != nullptr ? mr->ops->get_upstream(mr) : nullptr) {
    if (mr == target) return true;
    if (rmmjs::IsA<BinningMemoryResource>(mr)) {
      for (const rmmjs::ResourceRef& bin : rmmjs::ImplOf<BinningMemoryResource>(mr).Bins()) {
        if (Reaches(bin.get(), target)) return true;
      }
    }
  }
  return false;
}

// create(upstream)
Napi::Value Create(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  rmmjs_resource* upstream = rmmjs::js::ResourceArg(env, info[0], "upstream");
  rmmjs_resource* mr = nullptr;
  rmmjs::js::Check(env, rmmjs::NewResource<BinningMemoryResource>(upstream->device, upstream->flags, &mr,
                                                                   rmmjs::ResourceRef::Retain(upstream)));
  return rmmjs::js::WrapResource(env, mr);
}

// addBin(mr, allocationSize, binResource) -> whether it was added (false: that size has a bin)
Napi::Value AddBin(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  BinningMemoryResource& mr = Resource(info);
  auto size = static_cast<size_t>(info[1].As<Napi::Number>().DoubleValue());
  rmmjs_resource* bin = rmmjs::js::ResourceArg(env, info[2], "binResource");
  // A bin that allocates from this resource would recurse without end.
  if (Reaches(bin, rmmjs::js::ResourceArg(env, info[0], "this"))) {
    throw Napi::Error(env, rmmjs::js::MakeError(env, RMMJS_ERR_INVALID_ARGUMENT,
                                                "The argument \"binResource\" cannot be this BinningMemoryResource "
                                                "or a resource that allocates from it"));
  }
  try {
    return Napi::Boolean::New(env, mr.AddBin(size, bin));
  } catch (const std::bad_alloc&) {
    rmmjs::js::ThrowStatus(env, rmmjs::CoreApi()->set_error(RMMJS_ERR_OUT_OF_MEMORY, 0, "out of host memory"));
  }
}

// bins(mr) -> resource handles, smallest bin first
Napi::Value Bins(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::vector<rmmjs::ResourceRef> bins = Resource(info).Bins();
  Napi::Array result = Napi::Array::New(env, bins.size());
  for (size_t i = 0; i < bins.size(); i++) result.Set(static_cast<uint32_t>(i), rmmjs::js::WrapResource(env, bins[i].release()));
  return result;
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("init", Napi::Function::New(env, [](const Napi::CallbackInfo& info) { rmmjs::js::ReceiveCoreApi(info); }));
  exports.Set("create", Napi::Function::New(env, Create));
  exports.Set("addBin", Napi::Function::New(env, AddBin));
  exports.Set("hasBin", Napi::Function::New(env, [](const Napi::CallbackInfo& info) {
    auto size = static_cast<size_t>(info[1].As<Napi::Number>().DoubleValue());
    return Napi::Boolean::New(info.Env(), Resource(info).HasBin(size));
  }));
  exports.Set("bins", Napi::Function::New(env, Bins));
  return exports;
}

}  // namespace

NODE_API_MODULE(rmmjs_binning, Init)
