// napiFloor() -> { allocate, deallocate, handle }: two plain Node-API functions that take and
// return what core's allocate(mr, nbytes) and deallocate(mr, ptr, nbytes) do, with the same
// Node-API calls, and do nothing else. A JavaScript loop over them measures the floor that any
// Node-API binding of an allocate+free pair pays, to set beside what JS adds to a real pair.
#include "methods.h"
#include "rmmjs/addon.hpp"

namespace rmmjs::test_addon {
namespace {

int g_handle_target = 0;
constexpr uint64_t kPointer = 0x7f0000000000;

napi_value FloorAllocate(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr);
  void* handle = nullptr;
  double bytes = 0;
  napi_value result = nullptr;
  if (napi_get_value_external(env, argv[0], &handle) != napi_ok || handle != &g_handle_target ||
      napi_get_value_double(env, argv[1], &bytes) != napi_ok || !(bytes >= 0)) {
    napi_throw_type_error(env, nullptr, "allocate(handle, nbytes)");
    return nullptr;
  }
  napi_create_bigint_uint64(env, kPointer, &result);
  return result;
}

napi_value FloorDeallocate(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr);
  void* handle = nullptr;
  uint64_t pointer = 0;
  bool lossless = false;
  double bytes = 0;
  if (napi_get_value_external(env, argv[0], &handle) != napi_ok || handle != &g_handle_target ||
      napi_get_value_bigint_uint64(env, argv[1], &pointer, &lossless) != napi_ok || !lossless || pointer != kPointer ||
      napi_get_value_double(env, argv[2], &bytes) != napi_ok || !(bytes >= 0)) {
    napi_throw_type_error(env, nullptr, "deallocate(handle, ptr, nbytes)");
  }
  return nullptr;
}

Napi::Value RawFunction(Napi::Env env, const char* name, napi_callback callback) {
  napi_value function = nullptr;
  napi_create_function(env, name, NAPI_AUTO_LENGTH, callback, nullptr, &function);
  return Napi::Value(env, function);
}

}  // namespace

Napi::Value NapiFloor(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object result = Napi::Object::New(env);
  result.Set("allocate", RawFunction(env, "allocate", FloorAllocate));
  result.Set("deallocate", RawFunction(env, "deallocate", FloorDeallocate));
  result.Set("handle", Napi::External<int>::New(env, &g_handle_target));
  return result;
}

}  // namespace rmmjs::test_addon
