#include "runtime/stream.h"

#include <string>

#include "runtime/driver.h"
#include "runtime/errors.h"
#include "runtime/logger.h"

namespace rmmjs {
namespace {

// In host mode an event is a token that is always complete.
struct HostEvent {};

rmmjs_status CurrentContext(int* device, void** saved) {
  RMMJS_TRY(GetCurrentDevice(device));
  return ContextPush(*device, saved);
}

}  // namespace

rmmjs_status StreamObject::Create(bool non_blocking, int priority, StreamObject** out) {
  RMMJS_TRY(RequireUsableDriver());
  const rmmjs_driver_api* api = DriverApi();
  int device = 0;
  RMMJS_TRY(GetCurrentDevice(&device));
  if (api == nullptr) {
    // The object's own address is a unique non-zero token (never 0, 1 or 2).
    auto* stream = new StreamObject(0, device, true, priority);
    stream->handle_ = reinterpret_cast<rmmjs_stream>(stream);
    *out = stream;
    return RMMJS_OK;
  }
  ContextScope scope(device);
  RMMJS_TRY(scope.status());
  rmmjs_CUstream handle = nullptr;
  int result = api->cuStreamCreateWithPriority(&handle, non_blocking ? RMMJS_CU_STREAM_NON_BLOCKING : 0, priority);
  if (result != RMMJS_CUDA_SUCCESS) return CudaFailure(result, "cuStreamCreateWithPriority");
  *out = new StreamObject(reinterpret_cast<rmmjs_stream>(handle), device, true, priority);
  return RMMJS_OK;
}

StreamObject* StreamObject::Borrow(rmmjs_stream handle, int current) {
  auto* stream = new StreamObject(handle, current, false, 0);
  // In host mode a handle is a token of the current device; so are the default streams' handles.
  if (handle > kPerThreadStream && DriverApi() != nullptr) stream->device_.store(-1, std::memory_order_relaxed);
  return stream;
}

int StreamObject::AskDevice() const {
  const rmmjs_driver_api* api = DriverApi();
  rmmjs_CUcontext owner = nullptr;
  int device = -1;
  if (api->cuStreamGetCtx(reinterpret_cast<rmmjs_CUstream>(handle_), &owner) != RMMJS_CUDA_SUCCESS ||
      DeviceOfContext(owner, &device) != RMMJS_OK) {
    return borrowed_on_;
  }
  device_.store(device, std::memory_order_relaxed);  // threads that race store the same answer
  return device;
}

void StreamObject::Release() {
  if (refs_.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  if (owned_) {
    if (const rmmjs_driver_api* api = DriverApi()) {
      ContextScope scope(device_);
      // Work still queued on the stream completes; the driver frees the stream afterwards.
      int result = api->cuStreamDestroy(reinterpret_cast<rmmjs_CUstream>(handle_));
      if (result != RMMJS_CUDA_SUCCESS) {
        Log(RMMJS_LOG_ERROR, "Stream: cuStreamDestroy_v2 failed: " + DescribeCudaError(result));
      }
    }
  }
  delete this;
}

rmmjs_status StreamSynchronizeOnDevice(rmmjs_stream stream, int device) {
  const rmmjs_driver_api* api = DriverApi();
  if (api == nullptr) return RequireUsableDriver();
  ContextScope scope(device);
  RMMJS_TRY(scope.status());
  return CheckCuda(api->cuStreamSynchronize(reinterpret_cast<rmmjs_CUstream>(stream)), "cuStreamSynchronize");
}

rmmjs_status StreamSynchronize(rmmjs_stream stream) {
  int device = 0;
  RMMJS_TRY(GetCurrentDevice(&device));
  return StreamSynchronizeOnDevice(stream, device);
}

rmmjs_status StreamId(rmmjs_stream stream, uint64_t* id) {
  const rmmjs_driver_api* api = DriverApi();
  if (api == nullptr) {
    *id = stream;
    return RequireUsableDriver();
  }
  unsigned long long value = 0;
  RMMJS_TRY(CheckCuda(api->cuStreamGetId(reinterpret_cast<rmmjs_CUstream>(stream), &value), "cuStreamGetId"));
  *id = value;
  return RMMJS_OK;
}

rmmjs_status StreamCheckDevice(rmmjs_stream stream, int32_t device) {
  const rmmjs_driver_api* api = DriverApi();
  if (api == nullptr) return RequireUsableDriver();
  if (stream <= kPerThreadStream) return RMMJS_OK;  // the current context's, whichever it is
  rmmjs_CUcontext wanted = nullptr;
  RMMJS_TRY(PrimaryContext(device, &wanted));
  rmmjs_CUcontext owner = nullptr;
  RMMJS_TRY(CheckCuda(api->cuStreamGetCtx(reinterpret_cast<rmmjs_CUstream>(stream), &owner), "cuStreamGetCtx"));
  if (owner == wanted) return RMMJS_OK;
  int owner_device = -1;
  RMMJS_TRY(DeviceOfContext(owner, &owner_device));
  const std::string used = "a resource of device " + std::to_string(device);
  if (owner_device != device) {
    return SetError(RMMJS_ERR_INVALID_ARGUMENT, "the stream belongs to device " + std::to_string(owner_device) +
                                                    " and cannot order the memory of " + used +
                                                    " (use a Stream made while device " + std::to_string(device) +
                                                    " is current)");
  }
  return SetError(RMMJS_ERR_INVALID_ARGUMENT, "the stream belongs to a context of device " + std::to_string(device) +
                                                  " other than its primary context, and cannot order the memory of " +
                                                  used + ", which uses the primary context");
}

rmmjs_status DeviceSynchronize(int device) {
  RMMJS_TRY(ValidateDevice(device));
  const rmmjs_driver_api* api = DriverApi();
  if (api == nullptr) return RequireUsableDriver();
  ContextScope scope(device);
  RMMJS_TRY(scope.status());
  return CheckCuda(api->cuCtxSynchronize(), "cuCtxSynchronize");
}

rmmjs_status EventCreate(rmmjs_event* out) {
  const rmmjs_driver_api* api = DriverApi();
  if (api == nullptr) {
    RMMJS_TRY(RequireUsableDriver());
    *out = reinterpret_cast<rmmjs_event>(new HostEvent());
    return RMMJS_OK;
  }
  int device = 0;
  void* saved = nullptr;
  RMMJS_TRY(CurrentContext(&device, &saved));
  rmmjs_CUevent event = nullptr;
  int result = api->cuEventCreate(&event, RMMJS_CU_EVENT_DISABLE_TIMING);
  ContextRestore(saved);
  if (result != RMMJS_CUDA_SUCCESS) return CudaFailure(result, "cuEventCreate");
  *out = reinterpret_cast<rmmjs_event>(event);
  return RMMJS_OK;
}

rmmjs_status EventDestroy(rmmjs_event event) {
  const rmmjs_driver_api* api = DriverApi();
  if (api == nullptr) {
    delete reinterpret_cast<HostEvent*>(event);
    return RMMJS_OK;
  }
  return CheckCuda(api->cuEventDestroy(reinterpret_cast<rmmjs_CUevent>(event)), "cuEventDestroy_v2");
}

rmmjs_status EventRecord(rmmjs_event event, rmmjs_stream stream) {
  const rmmjs_driver_api* api = DriverApi();
  if (api == nullptr) return RMMJS_OK;
  return CheckCuda(api->cuEventRecord(reinterpret_cast<rmmjs_CUevent>(event), reinterpret_cast<rmmjs_CUstream>(stream)),
                   "cuEventRecord");
}

rmmjs_status EventSynchronize(rmmjs_event event) {
  const rmmjs_driver_api* api = DriverApi();
  if (api == nullptr) return RMMJS_OK;
  return CheckCuda(api->cuEventSynchronize(reinterpret_cast<rmmjs_CUevent>(event)), "cuEventSynchronize");
}

rmmjs_status StreamWaitEvent(rmmjs_stream stream, rmmjs_event event) {
  const rmmjs_driver_api* api = DriverApi();
  if (api == nullptr) return RMMJS_OK;
  return CheckCuda(
      api->cuStreamWaitEvent(reinterpret_cast<rmmjs_CUstream>(stream), reinterpret_cast<rmmjs_CUevent>(event), 0),
      "cuStreamWaitEvent");
}

}  // namespace rmmjs
