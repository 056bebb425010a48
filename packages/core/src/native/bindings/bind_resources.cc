// Resources and the registry, as JavaScript sees them. allocate/deallocate are the hot path:
// one call, no allocation beyond the result.
#include "bindings/binding_util.h"
#include "bindings/bindings.h"
#include "resources/resource.h"
#include "runtime/driver.h"
#include "runtime/errors.h"
#include "runtime/registry.h"

namespace rmmjs {
namespace bind {
namespace {

int DeviceOrCurrent(Napi::Env env, const Napi::Value& value) {
  if (!value.IsUndefined()) return IntArg(env, value, "device");
  int device = 0;
  js::Check(env, GetCurrentDevice(&device));
  return device;
}

// Holds a reference for the duration of a call into a resource that may run JavaScript (which
// could dispose the resource's last handle); free for every other resource.
class JsSafeReference {
 public:
  explicit JsSafeReference(rmmjs_resource* mr) : mr_((mr->flags & RMMJS_RESOURCE_CALLS_JS) ? mr : nullptr) {
    if (mr_ != nullptr) Retain(mr_);
  }
  ~JsSafeReference() {
    if (mr_ != nullptr) Release(mr_);
  }
  JsSafeReference(const JsSafeReference&) = delete;
  JsSafeReference& operator=(const JsSafeReference&) = delete;

 private:
  rmmjs_resource* mr_;
};

// The hot path in plain Node-API (no node-addon-api wrapper): allocate(mr, nbytes[, stream]).
// The stream is omitted for the default stream, so argc says whether there is one.
napi_value AllocateJs(napi_env raw_env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  napi_get_cb_info(raw_env, info, &argc, argv, nullptr, nullptr);
  Napi::Env env(raw_env);
  try {
    rmmjs_resource* mr = js::ResourceArg(env, argv[0], "mr", false);
    size_t bytes = SizeArg(env, argv[1], "nbytes");
    rmmjs_stream stream = argc > 2 ? StreamHandleArg(env, argv[2]) : kDefaultStream;
    JsSafeReference keep(mr);
    void* ptr = nullptr;  // each resource makes the context it needs current
    js::Check(env, Allocate(mr, bytes, stream, &ptr));
    napi_value result;
    napi_create_bigint_uint64(raw_env, reinterpret_cast<uintptr_t>(ptr), &result);
    return result;
  } catch (const Napi::Error& error) {
    error.ThrowAsJavaScriptException();
    return nullptr;
  }
}

// deallocate(mr, ptr, nbytes[, stream])
napi_value DeallocateJs(napi_env raw_env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  napi_get_cb_info(raw_env, info, &argc, argv, nullptr, nullptr);
  Napi::Env env(raw_env);
  try {
    rmmjs_resource* mr = js::ResourceArg(env, argv[0], "mr", false);
    auto* ptr = reinterpret_cast<void*>(PointerArg(env, argv[1], "ptr"));
    size_t bytes = SizeArg(env, argv[2], "nbytes");
    rmmjs_stream stream = argc > 3 ? StreamHandleArg(env, argv[3]) : kDefaultStream;
    JsSafeReference keep(mr);
    js::Check(env, Deallocate(mr, ptr, bytes, stream));
    return nullptr;
  } catch (const Napi::Error& error) {
    error.ThrowAsJavaScriptException();
    return nullptr;
  }
}

template <rmmjs_status (*Create)(int, rmmjs_resource**)>
Napi::Value CreateJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  rmmjs_resource* mr = nullptr;
  js::Check(env, Create(DeviceOrCurrent(env, info[0]), &mr));
  return js::WrapResource(env, mr);
}

Napi::Value CreateSamHeadroomJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  size_t headroom = SizeArg(env, info[0], "headroom");
  rmmjs_resource* mr = nullptr;
  js::Check(env, CreateSamHeadroomMemoryResource(DeviceOrCurrent(env, info[1]), headroom, &mr));
  return js::WrapResource(env, mr);
}

// (initialPoolSize | undefined, releaseThreshold | undefined, enableIpc, device?)
Napi::Value CreateCudaAsyncJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  size_t initial = 0;
  size_t threshold = 0;
  bool has_initial = !info[0].IsUndefined();
  bool has_threshold = !info[1].IsUndefined();
  if (has_initial) initial = SizeArg(env, info[0], "options.initialPoolSize");
  if (has_threshold) threshold = SizeArg(env, info[1], "options.releaseThreshold");
  rmmjs_resource* mr = nullptr;
  js::Check(env, CreateCudaAsyncMemoryResource(DeviceOrCurrent(env, info[3]), has_initial ? &initial : nullptr,
                                               has_threshold ? &threshold : nullptr, info[2].ToBoolean(), &mr));
  return js::WrapResource(env, mr);
}

Napi::Value CreateCudaAsyncViewJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  uintptr_t pool = PointerArg(env, info[0], "poolHandle");
  rmmjs_resource* mr = nullptr;
  js::Check(env, CreateCudaAsyncViewMemoryResource(DeviceOrCurrent(env, info[1]), pool, &mr));
  return js::WrapResource(env, mr);
}

Napi::Value AsyncPoolHandleJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  bool view = info[1].ToBoolean().Value();
  uintptr_t pool = 0;
  if (!AsyncPoolHandle(js::ResourceArg(env, info[0], "this"), view, &pool)) {
    js::ThrowTypeError(env, std::string("The \"this\" argument must be an instance of ") +
                                (view ? "CudaAsyncViewMemoryResource" : "CudaAsyncMemoryResource"));
  }
  return Napi::BigInt::New(env, static_cast<uint64_t>(pool));
}

Napi::Value GetDefaultMemPoolJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  js::Check(env, RequireCuda());
  int device = IntArg(env, info[0], "device");
  js::Check(env, ValidateDevice(device));
  rmmjs_CUmemoryPool pool = nullptr;
  int result = DriverApi()->cuDeviceGetDefaultMemPool(&pool, device);
  if (result != RMMJS_CUDA_SUCCESS) js::Check(env, CudaFailure(result, "cuDeviceGetDefaultMemPool"));
  return Napi::BigInt::New(env, static_cast<uint64_t>(reinterpret_cast<uintptr_t>(pool)));
}

Napi::Value ResourceInfoJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  rmmjs_resource* mr = js::ResourceArg(env, info[0], "mr");
  Napi::Object out = Napi::Object::New(env);
  out.Set("typeName", mr->ops->type_name ? mr->ops->type_name : "DeviceMemoryResource");
  out.Set("device", mr->device);
  out.Set("flags", mr->flags);
  out.Set("address", PointerValue(env, mr));
  return out;
}

Napi::Value ResourceAddressJs(const Napi::CallbackInfo& info) {
  return PointerValue(info.Env(), js::ResourceArg(info.Env(), info[0], "mr"));
}

Napi::Value ResourceUpstreamJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  rmmjs_resource* mr = js::ResourceArg(env, info[0], "mr");
  rmmjs_resource* upstream = mr->ops->get_upstream ? mr->ops->get_upstream(mr) : nullptr;
  if (upstream == nullptr) return env.Null();
  Retain(upstream);
  return js::WrapResource(env, upstream);
}

Napi::Value ResourceIsEqualJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Napi::Boolean::New(env,
                            IsEqual(js::ResourceArg(env, info[0], "mr"), js::ResourceArg(env, info[1], "other")) != 0);
}

Napi::Value ResourceDisposeJs(const Napi::CallbackInfo& info) {
  js::DisposeResource(info.Env(), info[0]);
  return info.Env().Undefined();
}

Napi::Value ResourceIsDisposedJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  void* data = nullptr;
  if (!js::HasTag(env, info[0], js::kResourceTag) || napi_get_value_external(env, info[0], &data) != napi_ok) {
    js::ThrowTypeError(env, "not a resource handle");
  }
  return Napi::Boolean::New(env, static_cast<rmmjs_resource_handle*>(data)->resource == nullptr);
}

Napi::Value GetPerDeviceResourceJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  rmmjs_resource* mr = nullptr;
  js::Check(env, GetPerDeviceResource(DeviceOrCurrent(env, info[0]), &mr));
  return js::WrapResource(env, mr);
}

Napi::Value SetPerDeviceResourceJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int device = DeviceOrCurrent(env, info[0]);
  rmmjs_resource* mr = js::ResourceArg(env, info[1], "mr");
  rmmjs_resource* previous = nullptr;
  js::Check(env, SetPerDeviceResource(device, mr, &previous));
  return js::WrapResource(env, previous);
}

Napi::Value InitializedDevicesJs(const Napi::CallbackInfo& info) {
  std::vector<int> devices = InitializedDevices();
  Napi::Array result = Napi::Array::New(info.Env(), devices.size());
  for (size_t i = 0; i < devices.size(); i++) result.Set(static_cast<uint32_t>(i), devices[i]);
  return result;
}

const js::Method kMethods[] = {
    {"allocate", AllocateJs},
    {"deallocate", DeallocateJs},
    {"createCudaMemoryResource", CreateJs<CreateCudaMemoryResource>},
    {"createManagedMemoryResource", CreateJs<CreateManagedMemoryResource>},
    {"createSystemMemoryResource", CreateJs<CreateSystemMemoryResource>},
    {"createPinnedHostMemoryResource", CreateJs<CreatePinnedHostMemoryResource>},
    {"createSamHeadroomMemoryResource", CreateSamHeadroomJs},
    {"createCudaAsyncMemoryResource", CreateCudaAsyncJs},
    {"createCudaAsyncViewMemoryResource", CreateCudaAsyncViewJs},
    {"asyncPoolHandle", AsyncPoolHandleJs},
    {"getDefaultMemPool", GetDefaultMemPoolJs},
    {"resourceInfo", ResourceInfoJs},
    {"resourceAddress", ResourceAddressJs},
    {"resourceUpstream", ResourceUpstreamJs},
    {"resourceIsEqual", ResourceIsEqualJs},
    {"resourceDispose", ResourceDisposeJs},
    {"resourceIsDisposed", ResourceIsDisposedJs},
    {"getPerDeviceResource", GetPerDeviceResourceJs},
    {"setPerDeviceResource", SetPerDeviceResourceJs},
    {"initializedDevices", InitializedDevicesJs},
};

}  // namespace

const MethodTable kResourceMethods = TableOf(kMethods);

}  // namespace bind
}  // namespace rmmjs
