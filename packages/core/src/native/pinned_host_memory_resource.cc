// Page-locked host memory from cuMemHostAlloc (portable: pinned for every context), as RMM's
// pinned_host_memory_resource. Device-accessible through unified addressing.
#include "driver.h"
#include "errors.h"
#include "resource.h"
#include "rmmjs/resource.hpp"

namespace rmmjs {
namespace {

class PinnedHostMemoryResource {
 public:
  static constexpr const char* kTypeName = "PinnedHostMemoryResource";
  explicit PinnedHostMemoryResource(int device) : device_(device) {}

  rmmjs_status Allocate(size_t bytes, rmmjs_stream, void** out) {
    ContextScope scope(device_);
    RMMJS_TRY(scope.status());
    int result = DriverApi()->cuMemHostAlloc(out, bytes, RMMJS_CU_MEMHOSTALLOC_PORTABLE);
    if (result != RMMJS_CUDA_SUCCESS) return AllocationFailure(result, "cuMemHostAlloc", bytes);
    return RMMJS_OK;
  }

  rmmjs_status Deallocate(void* ptr, size_t bytes, rmmjs_stream stream) {
    ContextScope scope(device_);
    RMMJS_TRY(scope.status());
    // Host memory is released at once: work still using it on the stream must finish first.
    int result = DriverApi()->cuStreamSynchronize(reinterpret_cast<rmmjs_CUstream>(stream));
    if (result != RMMJS_CUDA_SUCCESS) return CudaFailure(result, "cuStreamSynchronize");
    result = DriverApi()->cuMemFreeHost(ptr);
    if (result != RMMJS_CUDA_SUCCESS) return FreeFailure(result, "cuMemFreeHost", kTypeName, bytes);
    return RMMJS_OK;
  }

  bool IsEqual(const PinnedHostMemoryResource&) const { return true; }

 private:
  int device_;
};

}  // namespace

rmmjs_status CreatePinnedHostMemoryResource(int device, rmmjs_resource** out) {
  RMMJS_TRY(RequireCuda());
  RMMJS_TRY(ValidateDevice(device));
  return NewResource<PinnedHostMemoryResource>(
      device, RMMJS_RESOURCE_DEVICE_ACCESSIBLE | RMMJS_RESOURCE_HOST_ACCESSIBLE, out, device);
}

}  // namespace rmmjs
