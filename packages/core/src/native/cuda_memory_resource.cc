// cuMemAlloc / cuMemFree, as RMM's cuda_memory_resource (cudaMalloc / cudaFree).
#include "driver.h"
#include "errors.h"
#include "resource.h"
#include "rmmjs/resource.hpp"

namespace rmmjs {
namespace {

class CudaMemoryResource {
 public:
  static constexpr const char* kTypeName = "CudaMemoryResource";
  explicit CudaMemoryResource(int device) : device_(device) {}

  rmmjs_status Allocate(size_t bytes, rmmjs_stream, void** out) {
    ContextScope scope(device_);
    RMMJS_TRY(scope.status());
    rmmjs_CUdeviceptr ptr = 0;
    int result = DriverApi()->cuMemAlloc(&ptr, bytes);
    if (result != RMMJS_CUDA_SUCCESS) return AllocationFailure(result, "cuMemAlloc_v2", bytes);
    *out = reinterpret_cast<void*>(ptr);
    return RMMJS_OK;
  }

  rmmjs_status Deallocate(void* ptr, size_t bytes, rmmjs_stream) {
    ContextScope scope(device_);
    RMMJS_TRY(scope.status());
    int result = DriverApi()->cuMemFree(reinterpret_cast<rmmjs_CUdeviceptr>(ptr));
    if (result != RMMJS_CUDA_SUCCESS) return FreeFailure(result, "cuMemFree_v2", kTypeName, bytes);
    return RMMJS_OK;
  }

  bool IsEqual(const CudaMemoryResource&) const { return true; }

 private:
  int device_;
};

}  // namespace

rmmjs_status CreateCudaMemoryResource(int device, rmmjs_resource** out) {
  RMMJS_TRY(RequireCuda());
  RMMJS_TRY(ValidateDevice(device));
  return NewResource<CudaMemoryResource>(device, RMMJS_RESOURCE_DEVICE_ACCESSIBLE, out, device);
}

}  // namespace rmmjs
