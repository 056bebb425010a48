// @rmmjs/fixed-size's addon: create(upstream, blockSize, blocksToPreallocate) and blockSize(mr).
#include "rmmjs/addon.hpp"
#include "fixed_size_memory_resource.h"

namespace {

using rmmjs::FixedSizeBlocks;
using rmmjs::FixedSizeMemoryResource;
namespace js = rmmjs::js;

// create(upstream, blockSize, blocksToPreallocate): the sizes are defaulted and checked (at least 1,
// a chunk that fits in a safe integer) in fixed-size-memory-resource.ts.
Napi::Value Create(const Napi::CallbackInfo& info) {
  return js::CreateAdaptor<FixedSizeMemoryResource>(info, 0, js::SizeArg(info[1]), js::SizeArg(info[2]));
}

Napi::Value BlockSize(const Napi::CallbackInfo& info) {
  return js::SizeValue(info.Env(), js::Self<FixedSizeMemoryResource>(info).Inspect(
                                       [](const FixedSizeBlocks& blocks) { return blocks.block_size(); }));
}

}  // namespace

RMMJS_ADDON(rmmjs_fixed_size, {"create", Create}, {"blockSize", BlockSize})
