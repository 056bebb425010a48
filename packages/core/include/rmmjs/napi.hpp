// Node-API glue shared by @rmmjs/core and every adaptor addon (node-addon-api, C++ exceptions).
//
// An addon exports `init(coreApi, makeError, holdJsException)`, which loadAddon from
// '@rmmjs/core/addon' calls once per environment (rmmjs/addon.hpp defines it). Resources travel
// to and from JavaScript as type-tagged napi_externals holding one reference each.
#ifndef RMMJS_NAPI_HPP
#define RMMJS_NAPI_HPP

#include <napi.h>

#include <memory>
#include <string>
#include <utility>

#include "rmmjs/abi.h"
#include "rmmjs/resource.hpp"

// Marks a function that runs only on an error path: kept out of line, away from the hot code.
#ifndef RMMJS_COLD
#if defined(__GNUC__) || defined(__clang__)
#define RMMJS_COLD __attribute__((cold, noinline))
#else
#define RMMJS_COLD
#endif
#endif

namespace rmmjs {

class JsEnvironment;  // rmmjs/js_environment.hpp

namespace js {

inline constexpr napi_type_tag kResourceTag{RMMJS_TAG_RESOURCE_LOWER, RMMJS_TAG_RESOURCE_UPPER};
inline constexpr napi_type_tag kCoreApiTag{RMMJS_TAG_CORE_API_LOWER, RMMJS_TAG_CORE_API_UPPER};
inline constexpr napi_type_tag kMemoryTag{RMMJS_TAG_MEMORY_LOWER, RMMJS_TAG_MEMORY_UPPER};
inline constexpr napi_type_tag kBufferGuardTag{RMMJS_TAG_BUFFER_GUARD_LOWER, RMMJS_TAG_BUFFER_GUARD_UPPER};

// Per-environment state of one addon.
struct AddonData {
  Napi::FunctionReference make_error;  // (status, message, cudaCode, nodeCode?) => Error
  // RMMJS_JS_ADDON: the environment's JsEnvironment (owned by its cleanup hook).
  std::shared_ptr<JsEnvironment>* js_environment = nullptr;
};

inline AddonData& Data(Napi::Env env) {
  AddonData* data = env.GetInstanceData<AddonData>();
  if (data == nullptr) {
    data = new AddonData();
    env.SetInstanceData(data);
  }
  return *data;
}

inline bool HasTag(Napi::Env env, napi_value value, const napi_type_tag& tag) {
  // napi_check_object_type_tag converts its argument to an object: for null or undefined that
  // leaves V8's TypeError pending, which would replace the caller's own error.
  napi_valuetype type = napi_undefined;
  if (napi_typeof(env, value, &type) != napi_ok || (type != napi_object && type != napi_external)) return false;
  bool result = false;
  return napi_check_object_type_tag(env, value, &tag, &result) == napi_ok && result;
}

// An error object of the class status stands for (see rmmjs/abi.h), with the given message.
inline Napi::Value MakeError(Napi::Env env, rmmjs_status status, const std::string& message, int cuda_code = 0,
                             const char* node_code = nullptr) {
  AddonData& data = Data(env);
  if (data.make_error.IsEmpty()) return Napi::Error::New(env, message).Value();
  return data.make_error.Call({Napi::Number::New(env, status), Napi::String::New(env, message),
                               Napi::Number::New(env, cuda_code),
                               node_code ? Napi::String::New(env, node_code) : env.Undefined()});
}

// The error that status describes. RMMJS_ERR_JS_EXCEPTION takes the pending exception object
// itself, so a callback's error reaches the caller unchanged.
inline Napi::Value StatusError(Napi::Env env, rmmjs_status status) {
  if (status == RMMJS_ERR_JS_EXCEPTION && env.IsExceptionPending()) {
    return env.GetAndClearPendingException().Value();
  }
  const rmmjs_core_api* api = CoreApi();
  return MakeError(env, status, api->error_message(), api->error_cuda_code());
}

[[noreturn]] inline void ThrowStatus(Napi::Env env, rmmjs_status status) {
  throw Napi::Error(env, StatusError(env, status));
}

inline void Check(Napi::Env env, rmmjs_status status) {
  if (status != RMMJS_OK) ThrowStatus(env, status);
}

[[noreturn]] inline void ThrowTypeError(Napi::Env env, const std::string& message) {
  throw Napi::Error(env, MakeError(env, RMMJS_ERR_INVALID_ARGUMENT, message, 0, "ERR_INVALID_ARG_TYPE"));
}

// Receives core's API table: checks the tag and the ABI version, stores makeError.
inline void ReceiveCoreApi(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 2 || !HasTag(env, info[0], kCoreApiTag) || !info[1].IsFunction()) {
    throw Napi::TypeError::New(env, "init(coreApi, makeError, holdJsException) expects @rmmjs/core's API table");
  }
  auto* api = static_cast<const rmmjs_core_api*>(info[0].As<Napi::External<void>>().Data());
  if (!rmmjs_core_api_compatible(api)) {
    throw Napi::Error::New(env, "@rmmjs/core's C ABI " + std::to_string(api->abi_major) + "." +
                                    std::to_string(api->abi_minor) + " does not match this addon's (" +
                                    std::to_string(RMMJS_ABI_MAJOR) + "." + std::to_string(RMMJS_ABI_MINOR) +
                                    "): install matching versions of @rmmjs packages");
  }
  g_core_api = api;
  Data(env).make_error = Napi::Persistent(info[1].As<Napi::Function>());
}

// ResourceArg's errors, out of line (and marked cold) so that its happy path inlines into hot bindings.
[[noreturn]] RMMJS_COLD inline void ThrowNotAResource(Napi::Env env, const char* what, bool disposed) {
  if (disposed) {
    throw Napi::Error(env, MakeError(env, RMMJS_ERR_DISPOSED, std::string(what) + " was disposed and cannot be used"));
  }
  ThrowTypeError(env, std::string(what) + " must be a DeviceMemoryResource");
}

// The resource a JS handle carries (borrowed), or a TypeError naming `what`, or
// ERR_RMM_DISPOSED when the handle was disposed. Hot paths whose handle came from a
// DeviceMemoryResource's private field (tag checked at construction) pass check_tag = false.
inline rmmjs_resource* ResourceArg(Napi::Env env, napi_value value, const char* what, bool check_tag = true) {
  void* data = nullptr;
  if ((check_tag && !HasTag(env, value, kResourceTag)) || napi_get_value_external(env, value, &data) != napi_ok ||
      data == nullptr || static_cast<rmmjs_resource_handle*>(data)->magic != RMMJS_RESOURCE_HANDLE_MAGIC) {
    ThrowNotAResource(env, what, false);
  }
  rmmjs_resource* mr = static_cast<rmmjs_resource_handle*>(data)->resource;
  if (mr == nullptr) ThrowNotAResource(env, what, true);
  return mr;
}

// A JS handle for mr; adopts one reference, released by DisposeResource or when collected.
inline Napi::Value WrapResource(Napi::Env env, rmmjs_resource* mr) {
  auto* handle = new rmmjs_resource_handle{RMMJS_RESOURCE_HANDLE_MAGIC, mr};
  napi_value external = nullptr;
  napi_status status = napi_create_external(
      env, handle,
      [](napi_env, void* data, void*) {
        auto* handle = static_cast<rmmjs_resource_handle*>(data);
        if (handle->resource != nullptr) CoreApi()->release(handle->resource);
        handle->magic = 0;
        delete handle;
      },
      nullptr, &external);
  if (status != napi_ok) {
    CoreApi()->release(mr);
    delete handle;
    throw Napi::Error::New(env, "cannot create a resource handle");
  }
  napi_type_tag_object(env, external, &kResourceTag);
  return Napi::Value(env, external);
}

// Releases the handle's reference now (idempotent).
inline void DisposeResource(Napi::Env env, napi_value value) {
  void* data = nullptr;
  if (!HasTag(env, value, kResourceTag) || napi_get_value_external(env, value, &data) != napi_ok) {
    ThrowTypeError(env, "not a resource handle");
  }
  auto* handle = static_cast<rmmjs_resource_handle*>(data);
  if (rmmjs_resource* mr = handle->resource) {
    handle->resource = nullptr;
    CoreApi()->release(mr);
  }
}

namespace detail {

// The objects that travel as tagged externals and are owned until taken (see rmmjs/abi.h):
// memory and buffer guards.
template <class Handle>
struct Owned;
template <>
struct Owned<rmmjs_memory_handle> {
  using Object = rmmjs_memory;
  static constexpr uint64_t kMagic = RMMJS_MEMORY_HANDLE_MAGIC;
  static constexpr const char* kExpected = "a memory handle";
  static const napi_type_tag& Tag() { return kMemoryTag; }
  static Object*& Of(rmmjs_memory_handle* handle) { return handle->memory; }
  static void Discard(Object* memory) { memory->release(memory); }
};
template <>
struct Owned<rmmjs_buffer_guard_handle> {
  using Object = rmmjs_buffer_guard;
  static constexpr uint64_t kMagic = RMMJS_BUFFER_GUARD_HANDLE_MAGIC;
  static constexpr const char* kExpected = "a buffer guard handle";
  static const napi_type_tag& Tag() { return kBufferGuardTag; }
  static Object*& Of(rmmjs_buffer_guard_handle* handle) { return handle->guard; }
  static void Discard(Object* guard) { guard->destroy(guard); }
};

template <class Handle>
Napi::Value WrapOwned(Napi::Env env, typename Owned<Handle>::Object* object) {
  using Traits = Owned<Handle>;
  auto* handle = new Handle{Traits::kMagic, object};
  napi_value external = nullptr;
  if (napi_create_external(
          env, handle,
          [](napi_env, void* data, void*) {
            auto* handle = static_cast<Handle*>(data);
            if (Traits::Of(handle) != nullptr) Traits::Discard(Traits::Of(handle));
            handle->magic = 0;
            delete handle;
          },
          nullptr, &external) != napi_ok) {
    Traits::Discard(object);
    delete handle;
    throw Napi::Error::New(env, "cannot create a native handle");
  }
  napi_type_tag_object(env, external, &Traits::Tag());
  return Napi::Value(env, external);
}

template <class Handle>
typename Owned<Handle>::Object* TakeOwned(Napi::Env env, napi_value value, const std::string& what) {
  using Traits = Owned<Handle>;
  void* data = nullptr;
  if (!HasTag(env, value, Traits::Tag()) || napi_get_value_external(env, value, &data) != napi_ok || data == nullptr ||
      static_cast<Handle*>(data)->magic != Traits::kMagic) {
    ThrowTypeError(env, what + " must be " + Traits::kExpected);
  }
  auto* object = std::exchange(Traits::Of(static_cast<Handle*>(data)), nullptr);
  if (object == nullptr) {
    throw Napi::Error(env, MakeError(env, RMMJS_ERR_DISPOSED, what + " was taken already and cannot be used again"));
  }
  return object;
}

}  // namespace detail

// A JS handle (tagged RMMJS_TAG_MEMORY_*) that owns memory; released if nobody takes it.
inline Napi::Value WrapMemory(Napi::Env env, rmmjs_memory* memory) {
  return detail::WrapOwned<rmmjs_memory_handle>(env, memory);
}

// Takes the memory out of a JS handle: the caller owns it (and releases it once). A TypeError
// naming `what` for anything else, ERR_RMM_DISPOSED for a handle whose memory was taken.
inline rmmjs_memory* TakeMemory(Napi::Env env, napi_value value, const std::string& what) {
  return detail::TakeOwned<rmmjs_memory_handle>(env, value, what);
}

// The same for buffer guards (destroyed if nobody takes them).
inline Napi::Value WrapBufferGuard(Napi::Env env, rmmjs_buffer_guard* guard) {
  return detail::WrapOwned<rmmjs_buffer_guard_handle>(env, guard);
}

inline rmmjs_buffer_guard* TakeBufferGuard(Napi::Env env, napi_value value, const std::string& what) {
  return detail::TakeOwned<rmmjs_buffer_guard_handle>(env, value, what);
}

}  // namespace js
}  // namespace rmmjs

#endif  // RMMJS_NAPI_HPP
