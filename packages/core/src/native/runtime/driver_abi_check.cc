// Build-time check of rmmjs/cuda_driver.h against the CUDA toolkit's cuda.h. CMake compiles
// this file only where a toolkit is found; nothing else in the build may include cuda.h.
#include <cuda.h>

#include <cstddef>
#include <type_traits>

#include "rmmjs/cuda_driver.h"

namespace {

// Same arity, same parameter and result sizes: catches a wrong entry point version.
template <class A, class B>
struct SameShape : std::false_type {};
template <class RA, class... A, class RB, class... B>
struct SameShape<RA (*)(A...), RB (*)(B...)> {
  static constexpr bool value =
      sizeof...(A) == sizeof...(B) && sizeof(RA) == sizeof(RB) && ((sizeof(A) == sizeof(B)) && ...);
};

// cuda.h maps the unversioned names (cuMemAlloc) to the versioned symbols (cuMemAlloc_v2), so
// &::name is the function our table loads by its versioned name.
#define RMMJS_CHECK_SIGNATURE(name, symbol, ret, args)                                 \
  static_assert(SameShape<decltype(rmmjs_driver_api::name), decltype(&::name)>::value, \
                "signature of " symbol " differs from cuda.h");
RMMJS_DRIVER_FUNCTIONS(RMMJS_CHECK_SIGNATURE)
#undef RMMJS_CHECK_SIGNATURE

static_assert(CUDA_VERSION >= 12020, "the check expects the CUDA 12.2+ entry points");
static_assert(static_cast<int>(RMMJS_CUDA_SUCCESS) == static_cast<int>(CUDA_SUCCESS));
static_assert(static_cast<int>(RMMJS_CUDA_ERROR_INVALID_VALUE) == static_cast<int>(CUDA_ERROR_INVALID_VALUE));
static_assert(static_cast<int>(RMMJS_CUDA_ERROR_OUT_OF_MEMORY) == static_cast<int>(CUDA_ERROR_OUT_OF_MEMORY));
static_assert(static_cast<int>(RMMJS_CUDA_ERROR_NOT_INITIALIZED) == static_cast<int>(CUDA_ERROR_NOT_INITIALIZED));
static_assert(static_cast<int>(RMMJS_CUDA_ERROR_NO_DEVICE) == static_cast<int>(CUDA_ERROR_NO_DEVICE));
static_assert(static_cast<int>(RMMJS_CUDA_ERROR_INVALID_DEVICE) == static_cast<int>(CUDA_ERROR_INVALID_DEVICE));
static_assert(static_cast<int>(RMMJS_CUDA_ERROR_INVALID_CONTEXT) == static_cast<int>(CUDA_ERROR_INVALID_CONTEXT));
static_assert(static_cast<int>(RMMJS_CUDA_ERROR_MAP_FAILED) == static_cast<int>(CUDA_ERROR_MAP_FAILED));
static_assert(static_cast<int>(RMMJS_CUDA_ERROR_ALREADY_MAPPED) == static_cast<int>(CUDA_ERROR_ALREADY_MAPPED));
static_assert(static_cast<int>(RMMJS_CUDA_ERROR_INVALID_HANDLE) == static_cast<int>(CUDA_ERROR_INVALID_HANDLE));
static_assert(static_cast<int>(RMMJS_CUDA_ERROR_NOT_FOUND) == static_cast<int>(CUDA_ERROR_NOT_FOUND));
static_assert(static_cast<int>(RMMJS_CUDA_ERROR_NOT_READY) == static_cast<int>(CUDA_ERROR_NOT_READY));
static_assert(static_cast<int>(RMMJS_CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED) ==
              static_cast<int>(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED));
static_assert(static_cast<int>(RMMJS_CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED) ==
              static_cast<int>(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED));
static_assert(static_cast<int>(RMMJS_CUDA_ERROR_NOT_SUPPORTED) == static_cast<int>(CUDA_ERROR_NOT_SUPPORTED));
static_assert(static_cast<int>(RMMJS_CU_STREAM_NON_BLOCKING) == static_cast<int>(CU_STREAM_NON_BLOCKING));
static_assert(static_cast<int>(RMMJS_CU_EVENT_DISABLE_TIMING) == static_cast<int>(CU_EVENT_DISABLE_TIMING));
static_assert(static_cast<int>(RMMJS_CU_MEM_ATTACH_GLOBAL) == static_cast<int>(CU_MEM_ATTACH_GLOBAL));
static_assert(static_cast<int>(RMMJS_CU_MEMHOSTALLOC_PORTABLE) == static_cast<int>(CU_MEMHOSTALLOC_PORTABLE));
static_assert(static_cast<int>(RMMJS_CU_MEMHOSTALLOC_DEVICEMAP) == static_cast<int>(CU_MEMHOSTALLOC_DEVICEMAP));
static_assert(static_cast<int>(RMMJS_CU_MEM_ATTACH_HOST) == static_cast<int>(CU_MEM_ATTACH_HOST));
static_assert(static_cast<int>(RMMJS_CU_MEMHOSTALLOC_WRITECOMBINED) == static_cast<int>(CU_MEMHOSTALLOC_WRITECOMBINED));
static_assert(static_cast<int>(RMMJS_CU_MEMHOSTREGISTER_PORTABLE) == static_cast<int>(CU_MEMHOSTREGISTER_PORTABLE));
static_assert(static_cast<int>(RMMJS_CU_MEMHOSTREGISTER_DEVICEMAP) == static_cast<int>(CU_MEMHOSTREGISTER_DEVICEMAP));
static_assert(static_cast<int>(RMMJS_CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS) ==
              static_cast<int>(CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS));
static_assert(static_cast<int>(RMMJS_CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS) ==
              static_cast<int>(CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS));
static_assert(static_cast<int>(RMMJS_CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED) ==
              static_cast<int>(CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED));
static_assert(static_cast<int>(RMMJS_CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES) ==
              static_cast<int>(CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES));
static_assert(static_cast<int>(RMMJS_CU_POINTER_ATTRIBUTE_MEMORY_TYPE) ==
              static_cast<int>(CU_POINTER_ATTRIBUTE_MEMORY_TYPE));
static_assert(static_cast<int>(RMMJS_CU_POINTER_ATTRIBUTE_IS_MANAGED) ==
              static_cast<int>(CU_POINTER_ATTRIBUTE_IS_MANAGED));
static_assert(static_cast<int>(RMMJS_CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL) ==
              static_cast<int>(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL));
static_assert(static_cast<int>(RMMJS_CU_POINTER_ATTRIBUTE_RANGE_START_ADDR) ==
              static_cast<int>(CU_POINTER_ATTRIBUTE_RANGE_START_ADDR));
static_assert(static_cast<int>(RMMJS_CU_POINTER_ATTRIBUTE_RANGE_SIZE) ==
              static_cast<int>(CU_POINTER_ATTRIBUTE_RANGE_SIZE));
static_assert(static_cast<int>(RMMJS_CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE) ==
              static_cast<int>(CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE));
static_assert(static_cast<int>(RMMJS_CU_MEMORYTYPE_HOST) == static_cast<int>(CU_MEMORYTYPE_HOST));
static_assert(static_cast<int>(RMMJS_CU_MEMORYTYPE_DEVICE) == static_cast<int>(CU_MEMORYTYPE_DEVICE));
static_assert(static_cast<int>(RMMJS_CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE) ==
              static_cast<int>(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE));
static_assert(static_cast<int>(RMMJS_CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID) ==
              static_cast<int>(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID));
static_assert(static_cast<int>(RMMJS_CU_MEM_LOCATION_TYPE_INVALID) == static_cast<int>(CU_MEM_LOCATION_TYPE_INVALID));
static_assert(static_cast<int>(RMMJS_CU_MEM_LOCATION_TYPE_DEVICE) == static_cast<int>(CU_MEM_LOCATION_TYPE_DEVICE));
static_assert(static_cast<int>(RMMJS_CU_MEM_LOCATION_TYPE_HOST) == static_cast<int>(CU_MEM_LOCATION_TYPE_HOST));
static_assert(static_cast<int>(RMMJS_CU_MEM_ALLOCATION_TYPE_PINNED) == static_cast<int>(CU_MEM_ALLOCATION_TYPE_PINNED));
static_assert(static_cast<int>(RMMJS_CU_MEM_HANDLE_TYPE_NONE) == static_cast<int>(CU_MEM_HANDLE_TYPE_NONE));
static_assert(static_cast<int>(RMMJS_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) ==
              static_cast<int>(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
static_assert(static_cast<int>(RMMJS_CU_MEM_ADVISE_SET_PREFERRED_LOCATION) ==
              static_cast<int>(CU_MEM_ADVISE_SET_PREFERRED_LOCATION));
static_assert(static_cast<int>(RMMJS_CU_MEMPOOL_ATTR_RELEASE_THRESHOLD) ==
              static_cast<int>(CU_MEMPOOL_ATTR_RELEASE_THRESHOLD));

static_assert(static_cast<int>(RMMJS_CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS) ==
              static_cast<int>(CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
static_assert(RMMJS_CU_IPC_HANDLE_SIZE == CU_IPC_HANDLE_SIZE);

static_assert(sizeof(rmmjs_CUdeviceptr) == sizeof(CUdeviceptr));
static_assert(sizeof(rmmjs_CUipcMemHandle) == sizeof(CUipcMemHandle));
static_assert(sizeof(rmmjs_CUmemPoolPtrExportData) == sizeof(CUmemPoolPtrExportData));
static_assert(sizeof(rmmjs_CUuuid) == sizeof(CUuuid));
static_assert(sizeof(int) == sizeof(CUpointer_attribute));
static_assert(sizeof(rmmjs_CUmemLocation) == sizeof(CUmemLocation));
static_assert(offsetof(rmmjs_CUmemLocation, id) == offsetof(CUmemLocation, id));
static_assert(sizeof(rmmjs_CUmemPoolProps) == sizeof(CUmemPoolProps));
static_assert(offsetof(rmmjs_CUmemPoolProps, handle_types) == offsetof(CUmemPoolProps, handleTypes));
static_assert(offsetof(rmmjs_CUmemPoolProps, location) == offsetof(CUmemPoolProps, location));
static_assert(offsetof(rmmjs_CUmemPoolProps, max_size) == offsetof(CUmemPoolProps, maxSize));
static_assert(offsetof(rmmjs_CUmemPoolProps, usage) == offsetof(CUmemPoolProps, usage));

}  // namespace
