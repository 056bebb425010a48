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
// calls once through loadAdaptorAddon from '@rmmjs/core/internal', and the listed functions.
// An addon whose resources call JavaScript uses RMMJS_JS_ADDON instead: it also installs the
// environment's JsEnvironment (rmmjs/js_environment.hpp), which EnvironmentOf(info) returns in
// the listed functions, and hands holdJsException to it.
#ifndef RMMJS_ADDON_HPP
#define RMMJS_ADDON_HPP

#include <napi.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>

#include "rmmjs/abi.h"
#include "rmmjs/js_environment.hpp"
#include "rmmjs/napi.hpp"
#include "rmmjs/resource.hpp"

namespace rmmjs {
namespace js {

// The resource of class T that argument `index` carries (named `what` in errors).
template <class T>
T& Self(const Napi::CallbackInfo& info, size_t index = 0, const char* what = "this") {
  rmmjs_resource* mr = ResourceArg(info.Env(), info[index], what);
  if (!IsA<T>(mr)) ThrowTypeError(info.Env(), std::string(what) + " must be a " + T::kTypeName);
  return ImplOf<T>(mr);
}

// A byte count that JavaScript validated (a safe integer), or `absent` for undefined.
inline size_t SizeArg(const Napi::Value& value, size_t absent = 0) {
  return value.IsUndefined() ? absent : static_cast<size_t>(value.As<Napi::Number>().DoubleValue());
}

inline Napi::Value SizeValue(Napi::Env env, size_t value) { return Napi::Number::New(env, static_cast<double>(value)); }

// A new T(ResourceRef upstream, args...) on upstream's device, with upstream's flags plus
// extra_flags (RMMJS_RESOURCE_CALLS_JS for adaptors that run JavaScript): its JS handle.
template <class T, class... Args>
Napi::Value NewAdaptor(Napi::Env env, rmmjs_resource* upstream, uint32_t extra_flags, Args&&... args) {
  rmmjs_resource* mr = nullptr;
  Check(env, NewResource<T>(upstream->device, upstream->flags | extra_flags, &mr, ResourceRef::Retain(upstream),
                            std::forward<Args>(args)...));
  return WrapResource(env, mr);
}

// NewAdaptor over the upstream resource in info[0].
template <class T, class... Args>
Napi::Value CreateAdaptor(const Napi::CallbackInfo& info, uint32_t extra_flags, Args&&... args) {
  return NewAdaptor<T>(info.Env(), ResourceArg(info.Env(), info[0], "upstream"), extra_flags,
                       std::forward<Args>(args)...);
}

// The JsEnvironment of the calling function's environment (RMMJS_JS_ADDON functions only).
inline std::shared_ptr<JsEnvironment>& EnvironmentOf(const Napi::CallbackInfo& info) {
  return *static_cast<std::shared_ptr<JsEnvironment>*>(info.Data());
}

struct Method {
  const char* name;
  Napi::Value (*callback)(const Napi::CallbackInfo&);
};

// Module initialisation behind RMMJS_ADDON and RMMJS_JS_ADDON (a template, so that addons without
// JavaScript callbacks do not link against JsEnvironment).
template <bool kCallsJs>
Napi::Object ExportAddon(Napi::Env env, Napi::Object exports, std::initializer_list<Method> methods) {
  void* environment = nullptr;
  if constexpr (kCallsJs) environment = JsEnvironment::Install(env);
  auto init = [](const Napi::CallbackInfo& info) -> Napi::Value {
    ReceiveCoreApi(info);
    if constexpr (kCallsJs) {
      if (!info[2].IsFunction()) ThrowTypeError(info.Env(), "init(coreApi, makeError, holdJsException) expects a function");
      EnvironmentOf(info)->SetExceptionSink(info[2]);
    }
    return info.Env().Undefined();
  };
  exports.Set("init", Napi::Function::New(env, init, "init", environment));
  for (const Method& method : methods) {
    exports.Set(method.name, Napi::Function::New(env, method.callback, method.name, environment));
  }
  return exports;
}

}  // namespace js
}  // namespace rmmjs

#define RMMJS_ADDON_MODULE_(modname, calls_js, ...)                                             \
  static Napi::Object RmmjsAddonInit(Napi::Env env, Napi::Object exports) {                     \
    return rmmjs::js::ExportAddon<calls_js>(env, exports, {__VA_ARGS__});                       \
  }                                                                                             \
  NODE_API_MODULE(modname, RmmjsAddonInit)

// Defines the addon's module init: `init` plus the listed {"name", function} pairs.
#define RMMJS_ADDON(modname, ...) RMMJS_ADDON_MODULE_(modname, false, __VA_ARGS__)
// The same for an addon whose resources call JavaScript (compile it with rmmjs_addon(... JS_ENVIRONMENT)).
#define RMMJS_JS_ADDON(modname, ...) RMMJS_ADDON_MODULE_(modname, true, __VA_ARGS__)

#endif  // RMMJS_ADDON_HPP
