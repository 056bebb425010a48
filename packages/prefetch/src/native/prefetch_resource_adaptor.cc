#include "prefetch_resource_adaptor.h"

#include <string>

#include "rmmjs/cuda_driver.h"

namespace rmmjs {

rmmjs_status PrefetchResourceAdaptor::Allocate(size_t bytes, rmmjs_stream stream, void** out) {
  const rmmjs_core_api* api = CoreApi();
  rmmjs_status status = api->allocate(upstream_.get(), bytes, stream, out);
  if (status != RMMJS_OK || !prefetch_) return status;
  status = Prefetch(*out, bytes, stream);
  if (status != RMMJS_OK) {
    // RMM throws and leaks the allocation here; this gives it back (a free that fails too
    // reports its own error instead).
    api->deallocate(upstream_.get(), *out, bytes, stream);
    *out = nullptr;
  }
  return status;
}

rmmjs_status PrefetchResourceAdaptor::Prefetch(void* ptr, size_t bytes, rmmjs_stream stream) const {
  const rmmjs_core_api* api = CoreApi();
  // A native caller may have no context current on its thread.
  void* saved = nullptr;
  rmmjs_status status = api->context_push(device_, &saved);
  if (status != RMMJS_OK) return status;
  status = api->prefetch(ptr, bytes, device_, stream);
  api->context_restore(saved);
  // As rmm::prefetch: CUDA_ERROR_INVALID_VALUE means the memory cannot be prefetched, not that
  // something failed.
  if (status == RMMJS_ERR_CUDA && api->error_cuda_code() == RMMJS_CUDA_ERROR_INVALID_VALUE) return RMMJS_OK;
  return status;
}

rmmjs_status WorthPrefetching(const rmmjs_resource* upstream, bool* worth) {
  *worth = false;
  const rmmjs_driver_api* driver = CoreApi()->driver();
  if (driver == nullptr) return RMMJS_OK;
  if ((upstream->flags & (RMMJS_RESOURCE_DEVICE_ACCESSIBLE | RMMJS_RESOURCE_HOST_ACCESSIBLE)) ==
      RMMJS_RESOURCE_DEVICE_ACCESSIBLE) {
    return RMMJS_OK;
  }
  rmmjs_CUdevice handle = 0;
  int value = 0;
  const char* call = "cuDeviceGet";
  int result = driver->cuDeviceGet(&handle, upstream->device);
  if (result == RMMJS_CUDA_SUCCESS) {
    call = "cuDeviceGetAttribute";
    result = driver->cuDeviceGetAttribute(&value, RMMJS_CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS, handle);
  }
  if (result != RMMJS_CUDA_SUCCESS) {
    // Worded as core's CUDA failures: "CUDA error at <call>: <name> <description>".
    const char* name = nullptr;
    const char* description = nullptr;
    driver->cuGetErrorName(result, &name);
    driver->cuGetErrorString(result, &description);
    std::string message = std::string("CUDA error at ") + call + ": " +
                          (name ? name : "CUDA_ERROR_UNKNOWN") + " " + (description ? description : "unknown error");
    return CoreApi()->set_error(RMMJS_ERR_CUDA, result, message.c_str());
  }
  *worth = value != 0;
  return RMMJS_OK;
}

}  // namespace rmmjs
