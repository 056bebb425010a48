#include "host_memory.h"

#include <cstdlib>
#include <string>

#include "rmmjs/cuda_driver.h"
#include "rmmjs/format.hpp"
#include "rmmjs/resource.hpp"
#include "rmmjs/status.hpp"

namespace rmmjs {
namespace {

// The driver's table (nullptr in host mode), once it is known to have the entry points of version 2.
rmmjs_status DriverTable(const rmmjs_driver_api** out) {
  const rmmjs_core_api* core = CoreApi();
  *out = core->driver();
  if (*out != nullptr && !RMMJS_DRIVER_HAS(core, cuMemHostGetDevicePointer)) {
    *out = nullptr;
    return Fail(RMMJS_ERR_LOGIC,
                "@rmmjs/core is too old for @rmmjs/emm-plugin (its driver table has no cuMemHostRegister): install "
                "matching versions of @rmmjs packages");
  }
  return RMMJS_OK;
}

// Host memory standing in for page-locked or managed memory in host mode, aligned as allocations are.
rmmjs_status AllocateHost(size_t bytes, void** out) {
  *out = std::aligned_alloc(RMMJS_ALLOCATION_ALIGNMENT, AlignUp(bytes, RMMJS_ALLOCATION_ALIGNMENT));
  if (*out != nullptr) return RMMJS_OK;
  return Fail(RMMJS_ERR_OUT_OF_MEMORY, "out of host memory (failed to allocate " + FormatBytes(bytes) + ")");
}

// cuMemHostGetDevicePointer_v2 of mapped host memory.
rmmjs_status MappedAddress(const rmmjs_driver_api& cu, void* host_ptr, uint64_t* out) {
  rmmjs_CUdeviceptr device_ptr = 0;
  int result = cu.cuMemHostGetDevicePointer(&device_ptr, host_ptr, 0);
  if (result != RMMJS_CUDA_SUCCESS) return FailCuda(result, "cuMemHostGetDevicePointer_v2");
  *out = device_ptr;
  return RMMJS_OK;
}

}  // namespace

rmmjs_status HostMemory::AllocatePinned(int32_t device, size_t bytes, unsigned flags, HostMemory* out) {
  const rmmjs_driver_api* cu = nullptr;
  RMMJS_TRY(DriverTable(&cu));
  HostMemory memory;
  memory.kind_ = Kind::kPinned;
  memory.device_ = device;
  memory.bytes_ = bytes;
  bool mapped = (flags & RMMJS_CU_MEMHOSTALLOC_DEVICEMAP) != 0;
  if (bytes > 0 && cu == nullptr) {
    RMMJS_TRY(AllocateHost(bytes, &memory.host_ptr_));
    if (mapped) memory.device_ptr_ = reinterpret_cast<uintptr_t>(memory.host_ptr_);
  } else if (bytes > 0) {
    DeviceContext context(device);
    RMMJS_TRY(context.status());
    int result = cu->cuMemHostAlloc(&memory.host_ptr_, bytes, flags);
    if (result != RMMJS_CUDA_SUCCESS) return FailCudaAllocation(result, "cuMemHostAlloc", bytes);
    rmmjs_status status = mapped ? MappedAddress(*cu, memory.host_ptr_, &memory.device_ptr_) : RMMJS_OK;
    if (status != RMMJS_OK) {
      cu->cuMemFreeHost(memory.host_ptr_);
      return status;
    }
  }
  memory.released_ = bytes == 0;
  *out = memory;
  return RMMJS_OK;
}

rmmjs_status HostMemory::Register(int32_t device, void* ptr, size_t bytes, unsigned flags, HostMemory* out) {
  const rmmjs_driver_api* cu = nullptr;
  RMMJS_TRY(DriverTable(&cu));
  HostMemory memory;
  memory.kind_ = Kind::kRegistered;
  memory.device_ = device;
  memory.bytes_ = bytes;
  memory.host_ptr_ = ptr;
  bool mapped = (flags & RMMJS_CU_MEMHOSTREGISTER_DEVICEMAP) != 0;
  if (bytes > 0 && cu == nullptr) {
    if (mapped) memory.device_ptr_ = reinterpret_cast<uintptr_t>(ptr);
  } else if (bytes > 0) {
    DeviceContext context(device);
    RMMJS_TRY(context.status());
    int result = cu->cuMemHostRegister(ptr, bytes, flags);
    if (result == RMMJS_CUDA_ERROR_OUT_OF_MEMORY) {
      return CoreApi()->set_error(RMMJS_ERR_OUT_OF_MEMORY, result,
                                  ("CUDA error (failed to page-lock " + std::to_string(bytes) +
                                   " bytes) at cuMemHostRegister_v2: " + DescribeCudaError(result))
                                      .c_str());
    }
    if (result != RMMJS_CUDA_SUCCESS) return FailCuda(result, "cuMemHostRegister_v2");
    rmmjs_status status = mapped ? MappedAddress(*cu, ptr, &memory.device_ptr_) : RMMJS_OK;
    if (status != RMMJS_OK) {
      cu->cuMemHostUnregister(ptr);
      return status;
    }
  }
  memory.released_ = bytes == 0;
  *out = memory;
  return RMMJS_OK;
}

rmmjs_status HostMemory::AllocateManaged(int32_t device, size_t bytes, bool attach_global, HostMemory* out) {
  const rmmjs_driver_api* cu = nullptr;
  RMMJS_TRY(DriverTable(&cu));
  HostMemory memory;
  memory.kind_ = Kind::kManaged;
  memory.device_ = device;
  memory.bytes_ = bytes;
  if (bytes > 0 && cu == nullptr) {
    RMMJS_TRY(AllocateHost(bytes, &memory.host_ptr_));
  } else if (bytes > 0) {
    DeviceContext context(device);
    RMMJS_TRY(context.status());
    rmmjs_CUdeviceptr ptr = 0;
    int result =
        cu->cuMemAllocManaged(&ptr, bytes, attach_global ? RMMJS_CU_MEM_ATTACH_GLOBAL : RMMJS_CU_MEM_ATTACH_HOST);
    if (result != RMMJS_CUDA_SUCCESS) return FailCudaAllocation(result, "cuMemAllocManaged", bytes);
    memory.host_ptr_ = reinterpret_cast<void*>(ptr);
  }
  memory.device_ptr_ = reinterpret_cast<uintptr_t>(memory.host_ptr_);
  memory.released_ = bytes == 0;
  *out = memory;
  return RMMJS_OK;
}

rmmjs_status HostMemory::Release() {
  if (released_) return RMMJS_OK;
  const rmmjs_driver_api* cu = nullptr;
  RMMJS_TRY(DriverTable(&cu));
  if (cu == nullptr) {
    if (kind_ != Kind::kRegistered) std::free(host_ptr_);
    released_ = true;
    return RMMJS_OK;
  }
  DeviceContext context(device_);
  RMMJS_TRY(context.status());
  // Work queued on the device may still read or write the memory.
  RMMJS_TRY(CoreApi()->device_synchronize(device_));
  int result = RMMJS_CUDA_SUCCESS;
  const char* call = "";
  switch (kind_) {
    case Kind::kPinned:
      result = cu->cuMemFreeHost(host_ptr_);
      call = "cuMemFreeHost";
      break;
    case Kind::kRegistered:
      result = cu->cuMemHostUnregister(host_ptr_);
      call = "cuMemHostUnregister";
      break;
    case Kind::kManaged:
      result = cu->cuMemFree(reinterpret_cast<rmmjs_CUdeviceptr>(host_ptr_));
      call = "cuMemFree_v2";
      break;
  }
  if (result != RMMJS_CUDA_SUCCESS) return FailCuda(result, call);
  released_ = true;
  return RMMJS_OK;
}

}  // namespace rmmjs
