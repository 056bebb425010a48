// @rmmjs/pool's addon: create(upstream, initialPoolSize?, maximumPoolSize?) and poolSize(mr).
#include <optional>

#include "pool_memory_resource.h"
#include "rmmjs/addon.hpp"

namespace {

using rmmjs::PoolBlocks;
using rmmjs::PoolMemoryResource;
namespace js = rmmjs::js;

// create(upstream, initialPoolSize | undefined, maximumPoolSize | undefined): the resource checks the
// sizes and picks the default.
Napi::Value Create(const Napi::CallbackInfo& info) {
  return js::CreateAdaptor<PoolMemoryResource>(info, 0, js::OptionalSizeArg(info[1]), js::OptionalSizeArg(info[2]));
}

Napi::Value PoolSize(const Napi::CallbackInfo& info) {
  return js::SizeValue(info.Env(), js::Self<PoolMemoryResource>(info).Inspect(
                                       [](const PoolBlocks& blocks) { return blocks.pool_size(); }));
}

}  // namespace

RMMJS_ADDON(rmmjs_pool, {"create", Create}, {"poolSize", PoolSize})
