// The resources that are one driver call to allocate and one to free, as RMM's
// cuda_memory_resource (cudaMalloc), managed_memory_resource (cudaMallocManaged) and
// pinned_host_memory_resource (cudaHostAlloc): one class, with the driver calls as its parameter.
#include "resources/resource.h"
#include "rmmjs/resource.hpp"
#include "runtime/driver.h"
#include "runtime/errors.h"

namespace rmmjs {
namespace {

// cuMemAlloc / cuMemFree: device memory of the current context's device.
struct DeviceMemoryCalls {
  static constexpr const char* kTypeName = "CudaMemoryResource";
  static constexpr uint32_t kFlags = RMMJS_RESOURCE_DEVICE_ACCESSIBLE;
  static constexpr const char* kAllocateCall = "cuMemAlloc_v2";
  static constexpr const char* kFreeCall = "cuMemFree_v2";
  static constexpr bool kFreesAtOnce = false;  // cuMemFree waits for the device itself
  static int Allocate(const rmmjs_driver_api& cu, size_t bytes, rmmjs_CUdeviceptr* out) {
    return cu.cuMemAlloc(out, bytes);
  }
  static int Free(const rmmjs_driver_api& cu, rmmjs_CUdeviceptr ptr) { return cu.cuMemFree(ptr); }
};

// cuMemAllocManaged (attached globally) / cuMemFree: unified memory.
struct ManagedMemoryCalls {
  static constexpr const char* kTypeName = "ManagedMemoryResource";
  static constexpr uint32_t kFlags = RMMJS_RESOURCE_DEVICE_ACCESSIBLE | RMMJS_RESOURCE_HOST_ACCESSIBLE;
  static constexpr const char* kAllocateCall = "cuMemAllocManaged";
  static constexpr const char* kFreeCall = "cuMemFree_v2";
  static constexpr bool kFreesAtOnce = false;
  static int Allocate(const rmmjs_driver_api& cu, size_t bytes, rmmjs_CUdeviceptr* out) {
    return cu.cuMemAllocManaged(out, bytes, RMMJS_CU_MEM_ATTACH_GLOBAL);
  }
  static int Free(const rmmjs_driver_api& cu, rmmjs_CUdeviceptr ptr) { return cu.cuMemFree(ptr); }
};

// cuMemHostAlloc (portable: pinned for every context) / cuMemFreeHost: page-locked host memory,
// device-accessible through unified addressing.
struct PinnedHostMemoryCalls {
  static constexpr const char* kTypeName = "PinnedHostMemoryResource";
  static constexpr uint32_t kFlags = RMMJS_RESOURCE_DEVICE_ACCESSIBLE | RMMJS_RESOURCE_HOST_ACCESSIBLE;
  static constexpr const char* kAllocateCall = "cuMemHostAlloc";
  static constexpr const char* kFreeCall = "cuMemFreeHost";
  static constexpr bool kFreesAtOnce = true;
  static int Allocate(const rmmjs_driver_api& cu, size_t bytes, rmmjs_CUdeviceptr* out) {
    void* ptr = nullptr;
    int result = cu.cuMemHostAlloc(&ptr, bytes, RMMJS_CU_MEMHOSTALLOC_PORTABLE);
    *out = reinterpret_cast<rmmjs_CUdeviceptr>(ptr);
    return result;
  }
  static int Free(const rmmjs_driver_api& cu, rmmjs_CUdeviceptr ptr) {
    return cu.cuMemFreeHost(reinterpret_cast<void*>(ptr));
  }
};

template <class Calls>
class DriverMemoryResource {
 public:
  static constexpr const char* kTypeName = Calls::kTypeName;
  explicit DriverMemoryResource(int device) : device_(device) {}

  rmmjs_status Allocate(size_t bytes, rmmjs_stream, void** out) {
    ContextScope scope(device_);
    RMMJS_TRY(scope.status());
    rmmjs_CUdeviceptr ptr = 0;
    int result = Calls::Allocate(*DriverApi(), bytes, &ptr);
    if (result != RMMJS_CUDA_SUCCESS) return FailCudaAllocation(result, Calls::kAllocateCall, bytes);
    *out = reinterpret_cast<void*>(ptr);
    return RMMJS_OK;
  }

  rmmjs_status Deallocate(void* ptr, size_t bytes, rmmjs_stream stream) {
    ContextScope scope(device_);
    RMMJS_TRY(scope.status());
    const rmmjs_driver_api& cu = *DriverApi();
    if constexpr (Calls::kFreesAtOnce) {
      // Work still using the memory on the stream must finish first.
      RMMJS_TRY(CheckCuda(cu.cuStreamSynchronize(reinterpret_cast<rmmjs_CUstream>(stream)), "cuStreamSynchronize"));
    }
    int result = Calls::Free(cu, reinterpret_cast<rmmjs_CUdeviceptr>(ptr));
    return result == RMMJS_CUDA_SUCCESS ? RMMJS_OK : FreeFailure(result, Calls::kFreeCall, kTypeName, bytes);
  }

  // Every instance frees what another allocated (as RMM): they only call the driver.
  bool IsEqual(const DriverMemoryResource&) const { return true; }

 private:
  int device_;
};

template <class Calls>
rmmjs_status Create(int device, rmmjs_resource** out) {
  RMMJS_TRY(RequireCuda());
  RMMJS_TRY(ValidateDevice(device));
  return NewResource<DriverMemoryResource<Calls>>(device, Calls::kFlags, out, device);
}

}  // namespace

rmmjs_status CreateCudaMemoryResource(int device, rmmjs_resource** out) {
  return Create<DeviceMemoryCalls>(device, out);
}

rmmjs_status CreateManagedMemoryResource(int device, rmmjs_resource** out) {
  return Create<ManagedMemoryCalls>(device, out);
}

rmmjs_status CreatePinnedHostMemoryResource(int device, rmmjs_resource** out) {
  return Create<PinnedHostMemoryCalls>(device, out);
}

}  // namespace rmmjs
