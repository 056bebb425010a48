// What an adaptor package's addon.cc needs beyond its own methods (node-addon-api):
//
//   Napi::Value Create(const Napi::CallbackInfo& info) {
//     return rmmjs::js::CreateAdaptor<MyAdaptor>(info, 0, /* constructor arguments after the upstream */);
//   }
//   Napi::Value Count(const Napi::CallbackInfo& info) {
//     return rmmjs::js::SizeValue(info.Env(), rmmjs::js::Self<MyAdaptor>(info).count());
//   }
//   RMMJS_ADDON(my_addon, {"create", Create}, {"count", Count})
//
// RMMJS_ADDON exports `init(coreApi, makeError, holdJsException)`, which the package's JavaScript
// calls once through loadAddon from '@rmmjs/core/addon', and the listed functions. A listed
// function that runs out of host memory (std::bad_alloc) throws OutOfMemoryError instead of
// ending the process.
// An addon whose resources call JavaScript uses RMMJS_JS_ADDON instead: it also installs the
// environment's JsEnvironment (rmmjs/js_environment.hpp), which EnvironmentOf(info) returns in
// the listed functions, and hands holdJsException to it.
#ifndef RMMJS_ADDON_HPP
#define RMMJS_ADDON_HPP

#include <napi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <utility>

#include "rmmjs/abi.h"
#include "rmmjs/js_environment.hpp"
#include "rmmjs/napi.hpp"
#include "rmmjs/resource.hpp"
#include "rmmjs/status.hpp"

namespace rmmjs {
namespace js {

// The resource of class T that argument `index` carries (named `what` in errors).
template <class T>
T& Self(const Napi::CallbackInfo& info, size_t index = 0, const char* what = "this") {
  rmmjs_resource* mr = ResourceArg(info.Env(), info[index], what);
  if (!IsA<T>(mr)) ThrowTypeError(info.Env(), std::string(what) + " must be a " + T::kTypeName);
  return ImplOf<T>(mr);
}

// A byte count that JavaScript validated (a safe integer).
inline size_t SizeArg(const Napi::Value& value) { return static_cast<size_t>(value.As<Napi::Number>().DoubleValue()); }

// An optional byte count that JavaScript validated: undefined (not given) is std::nullopt.
inline std::optional<size_t> OptionalSizeArg(const Napi::Value& value) {
  if (value.IsUndefined()) return std::nullopt;
  return SizeArg(value);
}

inline Napi::Value SizeValue(Napi::Env env, size_t value) { return Napi::Number::New(env, static_cast<double>(value)); }

// A new T(args...) on `device` with `flags`: its JS handle.
template <class T, class... Args>
Napi::Value NewResourceHandle(Napi::Env env, int32_t device, uint32_t flags, Args&&... args) {
  rmmjs_resource* mr = nullptr;
  Check(env, NewResource<T>(device, flags, &mr, std::forward<Args>(args)...));
  return WrapResource(env, mr);
}

// A new T(ResourceRef upstream, args...) on upstream's device, with upstream's flags plus
// extra_flags (RMMJS_RESOURCE_CALLS_JS for adaptors that run JavaScript): its JS handle.
template <class T, class... Args>
Napi::Value NewAdaptor(Napi::Env env, rmmjs_resource* upstream, uint32_t extra_flags, Args&&... args) {
  return NewResourceHandle<T>(env, upstream->device, upstream->flags | extra_flags, ResourceRef::Retain(upstream),
                              std::forward<Args>(args)...);
}

// NewAdaptor over the upstream resource in info[0].
template <class T, class... Args>
Napi::Value CreateAdaptor(const Napi::CallbackInfo& info, uint32_t extra_flags, Args&&... args) {
  return NewAdaptor<T>(info.Env(), ResourceArg(info.Env(), info[0], "upstream"), extra_flags,
                       std::forward<Args>(args)...);
}

// The JsEnvironment of the calling function's environment (RMMJS_JS_ADDON functions only).
inline std::shared_ptr<JsEnvironment>& EnvironmentOf(const Napi::CallbackInfo& info) {
  return *Data(info.Env()).js_environment;
}

// A function an addon exports, by its JavaScript name: {"name", callback}, or, on a hot path,
// {"name", raw} with a plain Node-API callback (it skips node-addon-api's wrapper and CallMethod's
// guard, so it catches its own exceptions).
struct Method {
  constexpr Method(const char* name, Napi::Value (*callback)(const Napi::CallbackInfo&))
      : name(name), callback(callback) {}
  constexpr Method(const char* name, napi_callback raw) : name(name), raw(raw) {}

  const char* name;
  Napi::Value (*callback)(const Napi::CallbackInfo&) = nullptr;
  napi_callback raw = nullptr;
};

namespace detail {

// Calls the Method that is the function's data.
inline Napi::Value CallMethod(const Napi::CallbackInfo& info) {
  const Method& method = *static_cast<const Method*>(info.Data());
  try {
    return method.callback(info);
  } catch (const std::bad_alloc&) {
    ThrowStatus(info.Env(), FailOutOfHostMemory(method.name));
  }
}

template <bool kCallsJs>
Napi::Value Init(const Napi::CallbackInfo& info) {
  ReceiveCoreApi(info);
  if constexpr (kCallsJs) {
    if (!info[2].IsFunction())
      ThrowTypeError(info.Env(), "init(coreApi, makeError, holdJsException) expects a function");
    EnvironmentOf(info)->SetExceptionSink(info[2]);
  }
  return info.Env().Undefined();
}

}  // namespace detail

// Sets each of the `count` methods on exports as a function of its name. `methods` lives as long as
// the process (the functions point to them).
inline void ExportMethods(Napi::Env env, Napi::Object exports, const Method* methods, size_t count) {
  for (const Method* method = methods; method != methods + count; method++) {
    if (method->raw != nullptr) {
      napi_value function = nullptr;
      napi_create_function(env, method->name, NAPI_AUTO_LENGTH, method->raw, nullptr, &function);
      exports.Set(method->name, Napi::Value(env, function));
    } else {
      exports.Set(method->name,
                  Napi::Function::New(env, detail::CallMethod, method->name, const_cast<Method*>(method)));
    }
  }
}

// Module initialisation behind RMMJS_ADDON and RMMJS_JS_ADDON (a template, so that addons without
// JavaScript callbacks do not link against JsEnvironment). `methods` lives as long as the process.
template <bool kCallsJs, size_t kCount>
Napi::Object ExportAddon(Napi::Env env, Napi::Object exports, const Method (&methods)[kCount]) {
  if constexpr (kCallsJs) Data(env).js_environment = JsEnvironment::Install(env);
  exports.Set("init", Napi::Function::New(env, detail::Init<kCallsJs>, "init"));
  ExportMethods(env, exports, methods, kCount);
  return exports;
}

}  // namespace js
}  // namespace rmmjs

#define RMMJS_ADDON_MODULE_(modname, calls_js, ...)                            \
  static const rmmjs::js::Method kRmmjsAddonMethods[] = {__VA_ARGS__};         \
  static Napi::Object RmmjsAddonInit(Napi::Env env, Napi::Object exports) {    \
    return rmmjs::js::ExportAddon<calls_js>(env, exports, kRmmjsAddonMethods); \
  }                                                                            \
  NODE_API_MODULE(modname, RmmjsAddonInit)

// Defines the addon's module init: `init` plus the listed {"name", function} pairs.
#define RMMJS_ADDON(modname, ...) RMMJS_ADDON_MODULE_(modname, false, __VA_ARGS__)
// The same for an addon whose resources call JavaScript (compile it with rmmjs_addon(... JS_ENVIRONMENT)).
#define RMMJS_JS_ADDON(modname, ...) RMMJS_ADDON_MODULE_(modname, true, __VA_ARGS__)

#endif  // RMMJS_ADDON_HPP
