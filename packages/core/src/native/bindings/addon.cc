// @rmmjs/core's addon. Loading it touches no driver: CUDA is opened on first need.
#include <napi.h>

#include "bindings/bindings.h"
#include "rmmjs/loaded_libraries.hpp"
#include "rmmjs/napi.hpp"
#include "runtime/core_api.h"

namespace rmmjs {
namespace {

// init(makeError): core's own JavaScript hands over its error factory, as every addon does.
Napi::Value Init(const Napi::CallbackInfo& info) {
  if (!info[0].IsFunction()) throw Napi::TypeError::New(info.Env(), "init(makeError)");
  js::Data(info.Env()).make_error = Napi::Persistent(info[0].As<Napi::Function>());
  return info.Env().Undefined();
}

const js::Method kInit[] = {{"init", Init}};

}  // namespace
}  // namespace rmmjs

static Napi::Object InitCore(Napi::Env env, Napi::Object exports) {
  using namespace rmmjs;
  KeepLibraryLoaded(reinterpret_cast<const void*>(&InitCore));  // every addon's calls land here
  napi_value api = nullptr;
  napi_create_external(env, const_cast<rmmjs_core_api*>(CoreApiTable()), nullptr, nullptr, &api);
  napi_type_tag_object(env, api, &js::kCoreApiTag);
  exports.Set("coreApi", Napi::Value(env, api));
  exports.Set("abiVersion",
              Napi::String::New(env, std::to_string(RMMJS_ABI_MAJOR) + "." + std::to_string(RMMJS_ABI_MINOR)));
  // Then init and every bind_*.cc's functions.
  for (const bind::MethodTable& table :
       {bind::TableOf(kInit), bind::kCudaMethods, bind::kResourceMethods, bind::kStreamMethods, bind::kBufferMethods,
        bind::kLentMemoryMethods, bind::kLoggerMethods, bind::kThreadMethods, bind::kReclaimMethods}) {
    js::ExportMethods(env, exports, table.methods, table.count);
  }
  return exports;
}

NODE_API_MODULE(rmmjs_core, InitCore)
