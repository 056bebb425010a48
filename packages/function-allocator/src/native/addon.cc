// @rmmjs/function-allocator's addon: hands core's API table to librmmjs_allocators.so and tells
// JavaScript where its hooks are.
#include <dlfcn.h>

#include <cstdint>

#include "rmmjs/addon.hpp"
#include "rmmjs/allocators.h"
#include "rmmjs/loaded_libraries.hpp"

namespace {

namespace js = rmmjs::js;

template <class Function>
Napi::Value AddressOf(Napi::Env env, Function* function) {
  return Napi::BigInt::New(env, static_cast<uint64_t>(reinterpret_cast<uintptr_t>(function)));
}

// startHooks() -> the path of the library the hooks live in, as the dynamic loader opened it.
Napi::Value StartHooks(const Napi::CallbackInfo& info) {
  if (rmmjs_allocators_init(rmmjs::CoreApi()) != 1) {
    throw Napi::Error::New(info.Env(),
                           "librmmjs_allocators.so refused @rmmjs/core's API table (another @rmmjs/core initialised "
                           "it first): install matching versions of @rmmjs packages, one @rmmjs/core per process");
  }
  Dl_info where{};
  if (dladdr(reinterpret_cast<void*>(&rmmjs_torch_alloc), &where) == 0 || where.dli_fname == nullptr) {
    throw Napi::Error::New(info.Env(), "cannot tell which file librmmjs_allocators.so was loaded from");
  }
  // The hooks' addresses go to other libraries, which may call them after this thread has exited.
  rmmjs::KeepLibraryLoaded(reinterpret_cast<const void*>(&rmmjs_torch_alloc));
  return Napi::String::New(info.Env(), where.dli_fname);
}

// hookAddresses() -> { cupyMalloc, cupyFree, torchAlloc, torchFree, ortAlloc, ortFree, ortEmptyCache }
Napi::Value HookAddresses(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object out = Napi::Object::New(env);
  out.Set("cupyMalloc", AddressOf(env, &rmmjs_cupy_malloc));
  out.Set("cupyFree", AddressOf(env, &rmmjs_cupy_free));
  out.Set("torchAlloc", AddressOf(env, &rmmjs_torch_alloc));
  out.Set("torchFree", AddressOf(env, &rmmjs_torch_free));
  out.Set("ortAlloc", AddressOf(env, &rmmjs_ort_alloc));
  out.Set("ortFree", AddressOf(env, &rmmjs_ort_free));
  out.Set("ortEmptyCache", AddressOf(env, &rmmjs_ort_empty_cache));
  return out;
}

Napi::Value Statistics(const Napi::CallbackInfo& info) {
  rmmjs_allocator_statistics statistics{};
  rmmjs_allocators_statistics(&statistics);
  Napi::Env env = info.Env();
  auto number = [&](uint64_t value) { return Napi::Number::New(env, static_cast<double>(value)); };
  Napi::Object out = Napi::Object::New(env);
  out.Set("liveAllocations", number(statistics.live_allocations));
  out.Set("liveBytes", number(statistics.live_bytes));
  out.Set("totalAllocations", number(statistics.total_allocations));
  out.Set("failedAllocations", number(statistics.failed_allocations));
  out.Set("foreignFrees", number(statistics.foreign_frees));
  return out;
}

}  // namespace

RMMJS_ADDON(rmmjs_function_allocator, {"startHooks", StartHooks}, {"hookAddresses", HookAddresses},
            {"statistics", Statistics})
