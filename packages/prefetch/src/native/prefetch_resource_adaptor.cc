#include "prefetch_resource_adaptor.h"

#include "rmmjs/cuda_driver.h"
#include "rmmjs/status.hpp"

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
  DeviceContext context(device_);  // a native caller may have no context current on its thread
  RMMJS_TRY(context.status());
  rmmjs_status status = api->prefetch(ptr, bytes, device_, stream);
  // As rmm::prefetch: CUDA_ERROR_INVALID_VALUE means the memory cannot be prefetched, not that
  // something failed.
  if (status == RMMJS_ERR_CUDA && api->error_cuda_code() == RMMJS_CUDA_ERROR_INVALID_VALUE) return RMMJS_OK;
  return status;
}

rmmjs_status PrefetchResourceAdaptor::Init(rmmjs_resource*) {
  const rmmjs_driver_api* driver = CoreApi()->driver();
  const rmmjs_resource* upstream = upstream_.get();
  if (driver == nullptr) return RMMJS_OK;
  if ((upstream->flags & (RMMJS_RESOURCE_DEVICE_ACCESSIBLE | RMMJS_RESOURCE_HOST_ACCESSIBLE)) ==
      RMMJS_RESOURCE_DEVICE_ACCESSIBLE) {
    return RMMJS_OK;
  }
  rmmjs_CUdevice handle = 0;
  int result = driver->cuDeviceGet(&handle, upstream->device);
  if (result != RMMJS_CUDA_SUCCESS) return FailCuda(result, "cuDeviceGet");
  int concurrent_managed_access = 0;
  result = driver->cuDeviceGetAttribute(&concurrent_managed_access, RMMJS_CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS,
                                        handle);
  if (result != RMMJS_CUDA_SUCCESS) return FailCuda(result, "cuDeviceGetAttribute");
  prefetch_ = concurrent_managed_access != 0;
  return RMMJS_OK;
}

}  // namespace rmmjs
