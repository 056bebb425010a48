// cuMemAllocManaged / cuMemFree, as RMM's managed_memory_resource.
#include "driver.h"
#include "errors.h"
#include "resource.h"
#include "rmmjs/resource.hpp"

namespace rmmjs {
namespace {

class ManagedMemoryResource {
 public:
  static constexpr const char* kTypeName = "ManagedMemoryResource";
  explicit ManagedMemoryResource(int device) : device_(device) {}

  rmmjs_status Allocate(size_t bytes, rmmjs_stream, void** out) {
    ContextScope scope(device_);
    RMMJS_TRY(scope.status());
    rmmjs_CUdeviceptr ptr = 0;
    int result = DriverApi()->cuMemAllocManaged(&ptr, bytes, RMMJS_CU_MEM_ATTACH_GLOBAL);
    if (result != RMMJS_CUDA_SUCCESS) return AllocationFailure(result, "cuMemAllocManaged", bytes);
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

  bool IsEqual(const ManagedMemoryResource&) const { return true; }

 private:
  int device_;
};

}  // namespace

rmmjs_status CreateManagedMemoryResource(int device, rmmjs_resource** out) {
  RMMJS_TRY(RequireCuda());
  RMMJS_TRY(ValidateDevice(device));
  return NewResource<ManagedMemoryResource>(
      device, RMMJS_RESOURCE_DEVICE_ACCESSIBLE | RMMJS_RESOURCE_HOST_ACCESSIBLE, out, device);
}

}  // namespace rmmjs
