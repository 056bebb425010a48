// System-allocated memory that leaves `headroom` bytes of the GPU free, as RMM's
// sam_headroom_memory_resource: each allocation comes from the system resource and is advised
// to live on the GPU as far as free memory above the headroom allows, the rest on the host.
#include <algorithm>

#include "copies/memory_ops.h"
#include "resources/resource.h"
#include "rmmjs/resource.hpp"
#include "runtime/driver.h"
#include "runtime/errors.h"

namespace rmmjs {
namespace {

class SamHeadroomMemoryResource {
 public:
  static constexpr const char* kTypeName = "SamHeadroomMemoryResource";
  SamHeadroomMemoryResource(int device, size_t headroom, rmmjs_resource* system)
      : device_(device), headroom_(headroom), system_(system) {}
  ~SamHeadroomMemoryResource() { Release(system_); }
  SamHeadroomMemoryResource(const SamHeadroomMemoryResource&) = delete;
  SamHeadroomMemoryResource& operator=(const SamHeadroomMemoryResource&) = delete;

  rmmjs_status Allocate(size_t bytes, rmmjs_stream stream, void** out) {
    ContextScope scope(device_);
    RMMJS_TRY(scope.status());
    RMMJS_TRY(rmmjs::Allocate(system_, bytes, stream, out));
    rmmjs_status status = Advise(static_cast<char*>(*out), bytes);
    if (status != RMMJS_OK) {
      rmmjs::Deallocate(system_, *out, bytes, stream);
      *out = nullptr;
    }
    return status;
  }

  rmmjs_status Deallocate(void* ptr, size_t bytes, rmmjs_stream stream) {
    return rmmjs::Deallocate(system_, ptr, bytes, stream);
  }

  bool IsEqual(const SamHeadroomMemoryResource& other) const { return headroom_ == other.headroom_; }

 private:
  rmmjs_status Advise(char* ptr, size_t bytes) {
    size_t free_bytes = 0;
    size_t total_bytes = 0;
    RMMJS_TRY(MemGetInfo(device_, &free_bytes, &total_bytes));
    size_t allocatable = free_bytes > headroom_ ? free_bytes - headroom_ : 0;
    size_t gpu_portion = std::min(allocatable, bytes) / RMMJS_ALLOCATION_ALIGNMENT * RMMJS_ALLOCATION_ALIGNMENT;
    size_t cpu_portion = bytes - gpu_portion;
    const rmmjs_driver_api* api = DriverApi();
    if (gpu_portion != 0) {
      int result = api->cuMemAdvise(reinterpret_cast<rmmjs_CUdeviceptr>(ptr), gpu_portion,
                                    RMMJS_CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
                                    rmmjs_CUmemLocation{RMMJS_CU_MEM_LOCATION_TYPE_DEVICE, device_});
      if (result != RMMJS_CUDA_SUCCESS) return CudaFailure(result, "cuMemAdvise_v2");
    }
    if (cpu_portion != 0) {
      int result = api->cuMemAdvise(reinterpret_cast<rmmjs_CUdeviceptr>(ptr + gpu_portion), cpu_portion,
                                    RMMJS_CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
                                    rmmjs_CUmemLocation{RMMJS_CU_MEM_LOCATION_TYPE_HOST, 0});
      if (result != RMMJS_CUDA_SUCCESS) return CudaFailure(result, "cuMemAdvise_v2");
    }
    return RMMJS_OK;
  }

  int device_;
  size_t headroom_;
  rmmjs_resource* system_;  // one reference
};

}  // namespace

rmmjs_status CreateSamHeadroomMemoryResource(int device, size_t headroom, rmmjs_resource** out) {
  RMMJS_TRY(RequireCuda());
  rmmjs_resource* system = nullptr;
  RMMJS_TRY(CreateSystemMemoryResource(device, &system));
  rmmjs_status status = NewResource<SamHeadroomMemoryResource>(
      device, RMMJS_RESOURCE_DEVICE_ACCESSIBLE | RMMJS_RESOURCE_HOST_ACCESSIBLE, out, device, headroom, system);
  if (status != RMMJS_OK) Release(system);
  return status;
}

}  // namespace rmmjs
