#include <list>

#include "methods.h"
#include "rmmjs/addon.hpp"

namespace rmmjs::test_addon {

// forgeCoreApi(major, minor, size) -> a core API table (tagged as core's) that is this process's
// table with another abi_major, abi_minor and size: what an addon sees from an older or a newer
// core. The copies live as long as the process (an addon that accepts one keeps using it).
Napi::Value ForgeCoreApi(const Napi::CallbackInfo& info) {
  static std::list<rmmjs_core_api> forged;
  Napi::Env env = info.Env();
  rmmjs_core_api& table = forged.emplace_back(*CoreApi());
  table.abi_major = info[0].As<Napi::Number>().Uint32Value();
  table.abi_minor = info[1].As<Napi::Number>().Uint32Value();
  table.size = js::SizeArg(info[2]);
  Napi::External<rmmjs_core_api> external = Napi::External<rmmjs_core_api>::New(env, &table);
  napi_type_tag_object(env, external, &js::kCoreApiTag);
  return external;
}

}  // namespace rmmjs::test_addon
