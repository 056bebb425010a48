// @rmmjs/arena's addon: create(upstream, arenaSize, dumpLogOnFailure) and summary(mr).
#include "rmmjs/addon.hpp"
#include "arena_memory_resource.h"

namespace {

using rmmjs::ArenaMemoryResource;
namespace js = rmmjs::js;

// create(upstream, arenaSize (undefined: the default), dumpLogOnFailure)
Napi::Value Create(const Napi::CallbackInfo& info) {
  return js::CreateAdaptor<ArenaMemoryResource>(info, 0, js::OptionalSizeArg(info[1]),
                                                info[2].As<Napi::Boolean>().Value());
}

// summary(mr): where the memory is now (see arenaSummary in src/arena-memory-resource.ts).
Napi::Value Summary(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto summary = js::Self<ArenaMemoryResource>(info).Summarize();
  Napi::Object out = Napi::Object::New(env);
  out.Set("arenaSize", js::SizeValue(env, summary.arena_size));
  out.Set("threadArenas", js::SizeValue(env, summary.thread_arenas));
  out.Set("streamArenas", js::SizeValue(env, summary.stream_arenas));
  out.Set("globalSuperblocks", js::SizeValue(env, summary.global.superblocks));
  out.Set("globalFreeBytes", js::SizeValue(env, summary.global.free_bytes));
  out.Set("globalLargestFreeBlock", js::SizeValue(env, summary.global.largest_free_block));
  return out;
}

}  // namespace

RMMJS_ADDON(rmmjs_arena, {"create", Create}, {"summary", Summary})
