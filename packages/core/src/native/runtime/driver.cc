#include "runtime/driver.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <mutex>

#include "runtime/errors.h"

namespace rmmjs {
namespace {

constexpr const char* kDefaultLibrary = "libcuda.so.1";
// A value ContextPush returns when there is nothing to restore.
void* const kNothingToRestore = reinterpret_cast<void*>(1);
// What rmmjs knows about this thread's context, in one thread_local: in a dlopen'ed library
// every thread_local access is a __tls_get_addr call, and the hot path takes this once.
struct ThreadContext {
  // The device whose primary context the innermost ContextScope made current (-1: none).
  int scope_device = -1;
  // The context rmmjs last made or saw current (see ContextCheck::kTrust).
  rmmjs_CUcontext known = nullptr;
  // The device whose primary context `known` is (-1: not known to be a primary context), so that
  // a kTrust scope compares one number instead of looking the primary context up.
  int known_device = -1;
};
thread_local ThreadContext tl_context;

struct DriverState {
  DriverInfo info{DriverMode::kHost, RMMJS_ERR_DRIVER_NOT_FOUND, "", "", 0, 0};
  rmmjs_driver_api api{};
  std::mutex contexts_mutex;  // serialises the first retain of each primary context
  std::unique_ptr<std::atomic<rmmjs_CUcontext>[]> primary_contexts;
};

bool EnvSet(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && value[0] != '\0' && std::string(value) != "0";
}

void Load(DriverState& state) {
  DriverInfo& info = state.info;
  if (EnvSet("RMMJS_DISABLE_CUDA")) {
    info.host_status = RMMJS_ERR_DRIVER_NOT_FOUND;
    info.reason = "CUDA is disabled by RMMJS_DISABLE_CUDA; unset it to use the GPU.";
    return;
  }
  const char* override_path = std::getenv("RMMJS_CUDA_LIBRARY");
  bool explicit_path = override_path != nullptr && override_path[0] != '\0';
  info.library = explicit_path ? override_path : kDefaultLibrary;

  void* handle = dlopen(info.library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    if (explicit_path) {
      info.mode = DriverMode::kBroken;
      info.reason = "RMMJS_CUDA_LIBRARY=" + info.library + " could not be loaded (" + (why ? why : "unknown error") +
                    "). Point it at a CUDA driver library (libcuda.so.1) or unset it.";
    } else {
      info.host_status = RMMJS_ERR_DRIVER_NOT_FOUND;
      info.reason =
          "The CUDA driver (libcuda.so.1) was not found. Install the NVIDIA driver (on Linux: "
          "the nvidia-driver package of your distribution, or the CUDA driver from "
          "https://developer.nvidia.com/cuda-downloads), or set RMMJS_CUDA_LIBRARY to the path "
          "of libcuda.so.1.";
    }
    return;
  }

  std::string missing;
#define RMMJS_LOAD_SYMBOL(name, symbol, ret, args)                       \
  state.api.name = reinterpret_cast<ret(*) args>(dlsym(handle, symbol)); \
  if (state.api.name == nullptr) missing += std::string(missing.empty() ? "" : ", ") + symbol;
  RMMJS_DRIVER_FUNCTIONS(RMMJS_LOAD_SYMBOL)
#undef RMMJS_LOAD_SYMBOL
  if (!missing.empty()) {
    info.mode = explicit_path ? DriverMode::kBroken : DriverMode::kHost;
    info.host_status = RMMJS_ERR_DRIVER_NOT_FOUND;
    info.reason = info.library + " is too old for rmmjs (missing " + missing +
                  "). Install an NVIDIA driver that supports CUDA 12.2 or later.";
    return;
  }

  int result = state.api.cuInit(0);
  if (result == RMMJS_CUDA_SUCCESS) result = state.api.cuDeviceGetCount(&info.device_count);
  state.api.cuDriverGetVersion(&info.driver_version);
  if (result == RMMJS_CUDA_SUCCESS && info.device_count > 0) {
    info.mode = DriverMode::kCuda;
    state.primary_contexts.reset(new std::atomic<rmmjs_CUcontext>[info.device_count]());
    return;
  }
  info.device_count = 0;
  info.host_status = RMMJS_ERR_NO_DEVICE;
  const char* name = nullptr;
  state.api.cuGetErrorName(result, &name);
  info.reason =
      "The CUDA driver (" + info.library + ") found no usable GPU (" +
      (result == RMMJS_CUDA_SUCCESS ? std::string("device count 0") : std::string(name ? name : "cuInit failed")) +
      "). Check that a GPU is installed and visible (nvidia-smi, CUDA_VISIBLE_DEVICES).";
  if (explicit_path && result != RMMJS_CUDA_SUCCESS && result != RMMJS_CUDA_ERROR_NO_DEVICE) {
    info.mode = DriverMode::kBroken;
  }
}

DriverState& State() {
  // Never destroyed: resources freed during process exit may still need the driver.
  static DriverState* state = [] {
    auto* created = new DriverState();
    Load(*created);
    return created;
  }();
  return *state;
}

}  // namespace

const DriverInfo& Driver() { return State().info; }

const rmmjs_driver_api* DriverApi() {
  DriverState& state = State();
  return state.info.mode == DriverMode::kCuda ? &state.api : nullptr;
}

rmmjs_status RequireCuda() {
  const DriverInfo& info = Driver();
  switch (info.mode) {
    case DriverMode::kCuda:
      return RMMJS_OK;
    case DriverMode::kBroken:
      return SetError(RMMJS_ERR_DRIVER_NOT_FOUND, info.reason);
    case DriverMode::kHost:
      break;
  }
  return SetError(info.host_status, info.reason);
}

rmmjs_status RequireUsableDriver() {
  const DriverInfo& info = Driver();
  if (info.mode == DriverMode::kBroken) return SetError(RMMJS_ERR_DRIVER_NOT_FOUND, info.reason);
  return RMMJS_OK;
}

rmmjs_status ValidateDevice(int device) {
  RMMJS_TRY(RequireUsableDriver());
  int count = CudaAvailable() ? Driver().device_count : 1;
  if (device < 0 || device >= count) {
    return SetError(RMMJS_ERR_OUT_OF_RANGE, "Invalid device " + std::to_string(device) + ": " +
                                                (CudaAvailable() ? "it must be >= 0 and < " + std::to_string(count)
                                                                 : std::string("only device 0 exists in host mode")));
  }
  return RMMJS_OK;
}

rmmjs_status PrimaryContext(int device, rmmjs_CUcontext* context) {
  DriverState& state = State();
  // Fast path (every allocation of a memory pool): a device whose context is already retained.
  if (state.info.mode == DriverMode::kCuda && device >= 0 && device < state.info.device_count) {
    *context = state.primary_contexts[device].load(std::memory_order_acquire);
    if (*context != nullptr) return RMMJS_OK;
  }
  RMMJS_TRY(RequireCuda());
  RMMJS_TRY(ValidateDevice(device));
  std::atomic<rmmjs_CUcontext>& slot = state.primary_contexts[device];
  std::lock_guard<std::mutex> lock(state.contexts_mutex);
  *context = slot.load(std::memory_order_acquire);
  if (*context != nullptr) return RMMJS_OK;
  rmmjs_CUdevice handle = 0;
  int result = state.api.cuDeviceGet(&handle, device);
  if (result == RMMJS_CUDA_SUCCESS) result = state.api.cuDevicePrimaryCtxRetain(context, handle);
  if (result != RMMJS_CUDA_SUCCESS) {
    *context = nullptr;
    return CudaFailure(result, "cuDevicePrimaryCtxRetain");
  }
  slot.store(*context, std::memory_order_release);
  return RMMJS_OK;
}

rmmjs_status GetCurrentDevice(int* device) {
  *device = 0;
  RMMJS_TRY(RequireUsableDriver());
  const rmmjs_driver_api* api = DriverApi();
  if (api == nullptr) return RMMJS_OK;
  rmmjs_CUcontext current = nullptr;
  int result = api->cuCtxGetCurrent(&current);
  if (result != RMMJS_CUDA_SUCCESS) return CudaFailure(result, "cuCtxGetCurrent");
  if (current == nullptr) return RMMJS_OK;  // like cudaGetDevice: device 0 until one is set
  rmmjs_CUdevice handle = 0;
  result = api->cuCtxGetDevice(&handle);
  if (result != RMMJS_CUDA_SUCCESS) return CudaFailure(result, "cuCtxGetDevice");
  *device = handle;
  return RMMJS_OK;
}

rmmjs_status SetCurrentDevice(int device) {
  RMMJS_TRY(ValidateDevice(device));
  tl_context.scope_device = -1;
  const rmmjs_driver_api* api = DriverApi();
  if (api == nullptr) return RMMJS_OK;
  rmmjs_CUcontext context = nullptr;
  RMMJS_TRY(PrimaryContext(device, &context));
  int result = api->cuCtxSetCurrent(context);
  if (result != RMMJS_CUDA_SUCCESS) return CudaFailure(result, "cuCtxSetCurrent");
  tl_context.known = context;
  tl_context.known_device = device;
  return RMMJS_OK;
}

namespace {

// The device whose primary context `context` is, or -1 (another context, or none retained yet).
int DeviceOfPrimaryContext(rmmjs_CUcontext context) {
  DriverState& state = State();
  if (context == nullptr || state.info.mode != DriverMode::kCuda) return -1;
  for (int device = 0; device < state.info.device_count; ++device) {
    if (state.primary_contexts[device].load(std::memory_order_acquire) == context) return device;
  }
  return -1;
}

}  // namespace

rmmjs_status DeviceOfContext(rmmjs_CUcontext context, int* device) {
  *device = DeviceOfPrimaryContext(context);
  if (*device >= 0) return RMMJS_OK;
  RMMJS_TRY(RequireCuda());
  const rmmjs_driver_api& api = State().api;
  // cuCtxGetDevice answers for the current context only: make `context` current for the call.
  rmmjs_CUcontext current = nullptr;
  int result = api.cuCtxGetCurrent(&current);
  if (result != RMMJS_CUDA_SUCCESS) return CudaFailure(result, "cuCtxGetCurrent");
  result = api.cuCtxSetCurrent(context);
  if (result != RMMJS_CUDA_SUCCESS) return CudaFailure(result, "cuCtxSetCurrent");
  rmmjs_CUdevice handle = 0;
  result = api.cuCtxGetDevice(&handle);
  const int restored = api.cuCtxSetCurrent(current);
  if (result != RMMJS_CUDA_SUCCESS) return CudaFailure(result, "cuCtxGetDevice");
  if (restored != RMMJS_CUDA_SUCCESS) return CudaFailure(restored, "cuCtxSetCurrent");
  *device = handle;
  return RMMJS_OK;
}

rmmjs_status ContextPush(int device, void** saved) {
  *saved = kNothingToRestore;
  const rmmjs_driver_api* api = DriverApi();
  if (api == nullptr) return RequireUsableDriver();
  rmmjs_CUcontext wanted = nullptr;
  RMMJS_TRY(PrimaryContext(device, &wanted));
  rmmjs_CUcontext current = nullptr;
  int result = api->cuCtxGetCurrent(&current);
  if (result != RMMJS_CUDA_SUCCESS) return CudaFailure(result, "cuCtxGetCurrent");
  ThreadContext& thread = tl_context;
  thread.known = current;
  thread.known_device = current == wanted ? device : -1;
  if (current == wanted) return RMMJS_OK;
  result = api->cuCtxSetCurrent(wanted);
  if (result != RMMJS_CUDA_SUCCESS) return CudaFailure(result, "cuCtxSetCurrent");
  thread.known = wanted;
  thread.known_device = device;
  // A thread that had no context keeps the primary one, as the runtime API would.
  if (current != nullptr) *saved = current;
  return RMMJS_OK;
}

ContextScope::ContextScope(int device, ContextCheck check) {
  ThreadContext& thread = tl_context;
  outer_device_ = thread.scope_device;
  nested_ = device == thread.scope_device;
  if (nested_) return;
  if (check == ContextCheck::kTrust && thread.known_device == device) {
    nested_ = true;  // nothing to push or restore
    return;
  }
  status_ = ContextPush(device, &saved_);
  if (status_ == RMMJS_OK) thread.scope_device = device;
}

ContextScope::~ContextScope() {
  if (nested_ || status_ != RMMJS_OK) return;
  ContextRestore(saved_);
  tl_context.scope_device = outer_device_;
}

void ContextRestore(void* saved) {
  if (saved == kNothingToRestore) return;
  if (const rmmjs_driver_api* api = DriverApi()) {
    if (api->cuCtxSetCurrent(static_cast<rmmjs_CUcontext>(saved)) == RMMJS_CUDA_SUCCESS) {
      tl_context.known = static_cast<rmmjs_CUcontext>(saved);
      tl_context.known_device = DeviceOfPrimaryContext(tl_context.known);
    }
  }
}

}  // namespace rmmjs
