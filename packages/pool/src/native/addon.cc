// @rmmjs/pool's addon: create(upstream, initialPoolSize?, maximumPoolSize?) and poolSize(mr).
#include "rmmjs/addon.hpp"
#include "pool_memory_resource.h"

namespace {

using rmmjs::PoolBlocks;
using rmmjs::PoolMemoryResource;
namespace js = rmmjs::js;

// create(upstream, initialPoolSize | undefined, maximumPoolSize | undefined)
Napi::Value Create(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const size_t maximum = js::SizeArg(info[2], PoolBlocks::kNoMaximum);
  size_t initial = js::SizeArg(info[1]);
  js::Check(env, PoolBlocks::Validate(initial, maximum));
  if (info[1].IsUndefined()) {
    rmmjs_resource* upstream = js::ResourceArg(env, info[0], "upstream");
    js::Check(env, PoolBlocks::DefaultInitialPoolSize(upstream->device, maximum, &initial));
  }
  return js::CreateAdaptor<PoolMemoryResource>(info, 0, initial, maximum);
}

Napi::Value PoolSize(const Napi::CallbackInfo& info) {
  return js::SizeValue(info.Env(), js::Self<PoolMemoryResource>(info).Inspect(
                                       [](const PoolBlocks& blocks) { return blocks.pool_size(); }));
}

}  // namespace

RMMJS_ADDON(rmmjs_pool, {"create", Create}, {"poolSize", PoolSize})
