// streamQuery(handle) -> the CUresult of cuStreamQuery on this thread, in the current device's
// context: 0 when the work queued on the stream has finished, 600 (CUDA_ERROR_NOT_READY) while it
// runs. For tests that check whether a wait really waited (the bindings expose no query).
#include "methods.h"
#include "rmmjs/addon.hpp"

namespace rmmjs::test_addon {

Napi::Value StreamQuery(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  bool lossless = false;
  uint64_t handle = info[0].As<Napi::BigInt>().Uint64Value(&lossless);
  const rmmjs_driver_api* driver = CoreApi()->driver();
  if (!lossless || driver == nullptr) throw Napi::Error::New(env, "streamQuery needs a bigint handle and the driver");
  int32_t device = 0;
  if (CoreApi()->get_current_device(&device) != RMMJS_OK) throw Napi::Error::New(env, LastErrorMessage());
  DeviceContext context(device);
  if (context.status() != RMMJS_OK) throw Napi::Error::New(env, LastErrorMessage());
  return Napi::Number::New(env, driver->cuStreamQuery(reinterpret_cast<rmmjs_CUstream>(handle)));
}

}  // namespace rmmjs::test_addon
