// cuda.*: the driver as JavaScript sees it.
#include "bindings/binding_util.h"
#include "bindings/bindings.h"
#include "copies/memory_ops.h"
#include "runtime/driver.h"
#include "runtime/errors.h"
#include "runtime/stream.h"

namespace rmmjs {
namespace bind {
namespace {

Napi::Value DriverInfoJs(const Napi::CallbackInfo& info) {
  const DriverInfo& driver = Driver();
  Napi::Object out = Napi::Object::New(info.Env());
  const char* mode = driver.mode == DriverMode::kCuda ? "cuda" : driver.mode == DriverMode::kHost ? "host" : "broken";
  out.Set("mode", mode);
  out.Set("reason", driver.reason);
  out.Set("library", driver.library);
  out.Set("deviceCount", driver.device_count);
  out.Set("driverVersion", driver.driver_version);
  out.Set("hostStatus", static_cast<int>(driver.host_status));
  return out;
}

Napi::Value RequireCudaJs(const Napi::CallbackInfo& info) {
  js::Check(info.Env(), RequireCuda());
  return info.Env().Undefined();
}

Napi::Value GetDevice(const Napi::CallbackInfo& info) {
  int device = 0;
  js::Check(info.Env(), GetCurrentDevice(&device));
  return Napi::Number::New(info.Env(), device);
}

Napi::Value SetDevice(const Napi::CallbackInfo& info) {
  js::Check(info.Env(), SetCurrentDevice(IntArg(info.Env(), info[0], "device")));
  return info.Env().Undefined();
}

Napi::Value SynchronizeJs(const Napi::CallbackInfo& info) {
  js::Check(info.Env(), DeviceSynchronize(IntArg(info.Env(), info[0], "device")));
  return info.Env().Undefined();
}

Napi::Value ErrorName(const Napi::CallbackInfo& info) {
  return Napi::String::New(info.Env(), CudaErrorName(IntArg(info.Env(), info[0], "code")));
}

Napi::Value MemGetInfoJs(const Napi::CallbackInfo& info) {
  size_t free_bytes = 0;
  size_t total_bytes = 0;
  js::Check(info.Env(), MemGetInfo(IntArg(info.Env(), info[0], "device"), &free_bytes, &total_bytes));
  Napi::Array out = Napi::Array::New(info.Env(), 2);
  out.Set(0u, static_cast<double>(free_bytes));
  out.Set(1u, static_cast<double>(total_bytes));
  return out;
}

Napi::Value DeviceAttribute(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  js::Check(env, RequireCuda());
  int device = IntArg(env, info[0], "device");
  js::Check(env, ValidateDevice(device));
  int value = 0;
  int result = DriverApi()->cuDeviceGetAttribute(&value, IntArg(env, info[1], "attribute"), device);
  if (result != RMMJS_CUDA_SUCCESS) js::Check(env, CudaFailure(result, "cuDeviceGetAttribute"));
  return Napi::Number::New(env, value);
}

Napi::Value DeviceName(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  js::Check(env, RequireCuda());
  int device = IntArg(env, info[0], "device");
  js::Check(env, ValidateDevice(device));
  char name[256] = {0};
  int result = DriverApi()->cuDeviceGetName(name, sizeof(name) - 1, device);
  if (result != RMMJS_CUDA_SUCCESS) js::Check(env, CudaFailure(result, "cuDeviceGetName"));
  return Napi::String::New(env, name);
}

// Pointer and range queries need a context: the current device's (a thread may have none yet).
class CurrentDeviceContext {
 public:
  explicit CurrentDeviceContext(Napi::Env env) : scope_(Device(env)) { js::Check(env, scope_.status()); }

 private:
  static int Device(Napi::Env env) {
    int device = 0;
    js::Check(env, GetCurrentDevice(&device));
    return device;
  }
  ContextScope scope_;
};

Napi::Value LastPrefetchLocationJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CurrentDeviceContext context(env);
  int location = -2;
  js::Check(env, LastPrefetchLocation(reinterpret_cast<void*>(PointerArg(env, info[0], "ptr")),
                                      SizeArg(env, info[1], "nbytes"), &location));
  return Napi::Number::New(env, location);
}

const js::Method kMethods[] = {
    {"driverInfo", DriverInfoJs}, {"requireCuda", RequireCudaJs},
    {"getDevice", GetDevice},     {"setDevice", SetDevice},
    {"errorName", ErrorName},     {"synchronize", SynchronizeJs},
    {"memGetInfo", MemGetInfoJs}, {"deviceAttribute", DeviceAttribute},
    {"deviceName", DeviceName},   {"lastPrefetchLocation", LastPrefetchLocationJs},
};

}  // namespace

const MethodTable kCudaMethods = TableOf(kMethods);

}  // namespace bind
}  // namespace rmmjs
