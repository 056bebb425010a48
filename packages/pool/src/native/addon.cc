// @rmmjs/pool's addon: create(upstream, initialPoolSize?, maximumPoolSize?) and poolSize(mr).
#include <optional>

#include "pool_memory_resource.h"
#include "rmmjs/addon.hpp"

namespace {

using rmmjs::PoolBlocks;
using rmmjs::PoolMemoryResource;
namespace js = rmmjs::js;

// create(upstream, initialPoolSize | undefined, maximumPoolSize | undefined)
Napi::Value Create(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const std::optional<size_t> initial = js::OptionalSizeArg(info[1]);
  const std::optional<size_t> maximum = js::OptionalSizeArg(info[2]);
  js::Check(env, PoolBlocks::Validate(initial, maximum));
  size_t initial_pool_size = 0;
  if (initial.has_value()) {
    initial_pool_size = *initial;
  } else {
    rmmjs_resource* upstream = js::ResourceArg(env, info[0], "upstream");
    js::Check(env, PoolBlocks::DefaultInitialPoolSize(upstream->device, maximum, &initial_pool_size));
  }
  return js::CreateAdaptor<PoolMemoryResource>(info, 0, initial_pool_size, maximum);
}

Napi::Value PoolSize(const Napi::CallbackInfo& info) {
  return js::SizeValue(info.Env(), js::Self<PoolMemoryResource>(info).Inspect(
                                       [](const PoolBlocks& blocks) { return blocks.pool_size(); }));
}

}  // namespace

RMMJS_ADDON(rmmjs_pool, {"create", Create}, {"poolSize", PoolSize})
