// poolThreadCaches(mr, enable) -> the blocks waiting in the threads' caches of an @rmmjs/pool
// PoolMemoryResource; `enable` turns the caches on first, as the first time threads meet on the
// pool's lock would. The resource is read as the class packages/pool/src/native declares: this
// addon compiles the same headers (core's stream_ordered_resource.hpp and thread_cache.hpp, the
// pool's own), so the layout is the pool addon's.
#include <cstring>

#include "methods.h"
#include "pool_memory_resource.h"
#include "rmmjs/addon.hpp"

namespace rmmjs::test_addon {

Napi::Value PoolThreadCaches(const Napi::CallbackInfo& info) {
  rmmjs_resource* mr = js::ResourceArg(info.Env(), info[0], "mr");
  if (std::strcmp(mr->ops->type_name, PoolMemoryResource::kTypeName) != 0) {
    js::ThrowTypeError(info.Env(), "mr must be a PoolMemoryResource");
  }
  PoolMemoryResource& pool = ImplOf<PoolMemoryResource>(mr);
  if (info[1].ToBoolean()) pool.EnableThreadCaches();
  return js::SizeValue(info.Env(), pool.CachedBlocks());
}

}  // namespace rmmjs::test_addon
