// @rmmjs/fixed-size's addon: create(upstream, blockSize, blocksToPreallocate) and blockSize(mr).
#include <string>

#include "fixed_size_memory_resource.h"
#include "rmmjs/addon.hpp"
#include "rmmjs/format.hpp"

namespace {

using rmmjs::FixedSizeBlocks;
using rmmjs::FixedSizeMemoryResource;
namespace js = rmmjs::js;

[[noreturn]] void ThrowOutOfRange(Napi::Env env, const std::string& message) {
  throw Napi::Error(env, js::MakeError(env, RMMJS_ERR_OUT_OF_RANGE, message));
}

// create(upstream, blockSize, blocksToPreallocate): the numbers were validated in JavaScript;
// what would break the resource (zero, an overflowing chunk) is checked again here.
Napi::Value Create(const Napi::CallbackInfo& info) {
  const size_t block_size = js::SizeArg(info[1]);
  const size_t blocks = js::SizeArg(info[2]);
  size_t chunk = 0;
  if (block_size == 0) ThrowOutOfRange(info.Env(), "options.blockSize must be at least 1 byte");
  if (blocks == 0) ThrowOutOfRange(info.Env(), "options.blocksToPreallocate must be at least 1");
  if (block_size > SIZE_MAX - 255 ||
      __builtin_mul_overflow(rmmjs::AlignUp(block_size, RMMJS_ALLOCATION_ALIGNMENT), blocks, &chunk)) {
    ThrowOutOfRange(info.Env(), "options.blockSize * options.blocksToPreallocate does not fit in a size_t");
  }
  return js::CreateAdaptor<FixedSizeMemoryResource>(info, 0, block_size, blocks);
}

Napi::Value BlockSize(const Napi::CallbackInfo& info) {
  return js::SizeValue(info.Env(), js::Self<FixedSizeMemoryResource>(info).Inspect(
                                       [](const FixedSizeBlocks& blocks) { return blocks.block_size(); }));
}

}  // namespace

RMMJS_ADDON(rmmjs_fixed_size, {"create", Create}, {"blockSize", BlockSize})
