// @rmmjs/binning's addon: create(upstream), addBin(mr, size, bin), hasBin(mr, size), bins(mr).
#include "rmmjs/addon.hpp"
#include "binning_memory_resource.h"

namespace {

using rmmjs::BinningMemoryResource;
namespace js = rmmjs::js;

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
Napi::Value Create(const Napi::CallbackInfo& info) { return js::CreateAdaptor<BinningMemoryResource>(info, 0); }

// addBin(mr, allocationSize, binResource) -> whether it was added (false: that size has a bin)
Napi::Value AddBin(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  BinningMemoryResource& mr = js::Self<BinningMemoryResource>(info);
  rmmjs_resource* bin = js::ResourceArg(env, info[2], "binResource");
  // A bin that allocates from this resource would recurse without end.
  if (Reaches(bin, js::ResourceArg(env, info[0], "this"))) {
    js::ThrowStatus(env, rmmjs::Fail(RMMJS_ERR_INVALID_ARGUMENT,
                                     "The argument \"binResource\" cannot be this BinningMemoryResource "
                                     "or a resource that allocates from it"));
  }
  return Napi::Boolean::New(env, mr.AddBin(js::SizeArg(info[1]), bin));
}

// hasBin(mr, allocationSize)
Napi::Value HasBin(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), js::Self<BinningMemoryResource>(info).HasBin(js::SizeArg(info[1])));
}

// bins(mr) -> resource handles, smallest bin first
Napi::Value Bins(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::vector<rmmjs::ResourceRef> bins = js::Self<BinningMemoryResource>(info).Bins();
  Napi::Array result = Napi::Array::New(env, bins.size());
  for (size_t i = 0; i < bins.size(); i++)
    result.Set(static_cast<uint32_t>(i), js::WrapResource(env, bins[i].release()));
  return result;
}

}  // namespace

RMMJS_ADDON(rmmjs_binning, {"create", Create}, {"addBin", AddBin}, {"hasBin", HasBin}, {"bins", Bins})
