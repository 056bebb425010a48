// @rmmjs/arena's addon: create(upstream, arenaSize, dumpLogOnFailure), and for the tests and
// benchmarks a summary of where the memory is and a workload on native threads.
#include <cmath>

#include "arena_memory_resource.h"
#include "native_threads_workload.h"
#include "rmmjs/napi.hpp"

namespace {

// create(upstream, arenaSize (-1: the default), dumpLogOnFailure)
Napi::Value Create(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  rmmjs_resource* upstream = rmmjs::js::ResourceArg(env, info[0], "upstream");
  double size = info[1].As<Napi::Number>().DoubleValue();
  std::optional<size_t> arena_size;
  if (size >= 0) arena_size = static_cast<size_t>(size);
  bool dump_log_on_failure = info[2].As<Napi::Boolean>().Value();
  rmmjs_resource* mr = nullptr;
  rmmjs::js::Check(env, rmmjs::NewResource<rmmjs::ArenaMemoryResource>(
                            upstream->device, upstream->flags, &mr, rmmjs::ResourceRef::Retain(upstream),
                            arena_size, dump_log_on_failure));
  return rmmjs::js::WrapResource(env, mr);
}

// summary(mr): { arenaSize, threadArenas, streamArenas, globalSuperblocks, globalFreeBytes,
// globalLargestFreeBlock } (for the tests).
Napi::Value Summary(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  rmmjs_resource* mr = rmmjs::js::ResourceArg(env, info[0], "mr");
  if (!rmmjs::IsA<rmmjs::ArenaMemoryResource>(mr)) rmmjs::js::ThrowTypeError(env, "mr must be an ArenaMemoryResource");
  auto summary = rmmjs::ImplOf<rmmjs::ArenaMemoryResource>(mr).Summarize();
  Napi::Object out = Napi::Object::New(env);
  out.Set("arenaSize", static_cast<double>(summary.arena_size));
  out.Set("threadArenas", static_cast<double>(summary.thread_arenas));
  out.Set("streamArenas", static_cast<double>(summary.stream_arenas));
  out.Set("globalSuperblocks", static_cast<double>(summary.global.superblocks));
  out.Set("globalFreeBytes", static_cast<double>(summary.global.free_bytes));
  out.Set("globalLargestFreeBlock", static_cast<double>(summary.global.largest_free_block));
  return out;
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("init", Napi::Function::New(env, [](const Napi::CallbackInfo& info) { rmmjs::js::ReceiveCoreApi(info); }));
  exports.Set("create", Napi::Function::New(env, Create));
  exports.Set("summary", Napi::Function::New(env, Summary));
  exports.Set("nativeThreadsWorkload", Napi::Function::New(env, rmmjs::arena::NativeThreadsWorkload));
  return exports;
}

}  // namespace

NODE_API_MODULE(rmmjs_arena, Init)
