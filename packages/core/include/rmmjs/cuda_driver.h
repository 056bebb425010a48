/*
 * The subset of the CUDA driver API that rmmjs uses, declared here so that nothing needs the
 * CUDA toolkit to build. Values and layouts are checked against the toolkit's cuda.h at build
 * time where one is installed (src/native/runtime/driver_abi_check.cc).
 */
#ifndef RMMJS_CUDA_DRIVER_H
#define RMMJS_CUDA_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#include "rmmjs/abi.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef int rmmjs_CUresult;
typedef int rmmjs_CUdevice;
typedef unsigned long long rmmjs_CUdeviceptr;
typedef struct CUctx_st* rmmjs_CUcontext;
typedef struct CUstream_st* rmmjs_CUstream;
typedef struct CUevent_st* rmmjs_CUevent;
typedef struct CUmemPoolHandle_st* rmmjs_CUmemoryPool;
typedef void (*rmmjs_CUhostFn)(void* user_data);

typedef struct rmmjs_CUmemLocation {
  int type; /* CUmemLocationType */
  int id;
} rmmjs_CUmemLocation;

/* The 64 opaque bytes of an IPC memory handle (CUipcMemHandle) and of a pool allocation's export
 * data (CUmemPoolPtrExportData), and a device's UUID (CUuuid). */
#define RMMJS_CU_IPC_HANDLE_SIZE 64
typedef struct rmmjs_CUipcMemHandle {
  char reserved[RMMJS_CU_IPC_HANDLE_SIZE];
} rmmjs_CUipcMemHandle;
typedef struct rmmjs_CUmemPoolPtrExportData {
  unsigned char reserved[RMMJS_CU_IPC_HANDLE_SIZE];
} rmmjs_CUmemPoolPtrExportData;
typedef struct rmmjs_CUuuid {
  char bytes[16];
} rmmjs_CUuuid;

typedef struct rmmjs_CUmemPoolProps {
  int alloc_type;   /* CUmemAllocationType */
  int handle_types; /* CUmemAllocationHandleType */
  rmmjs_CUmemLocation location;
  void* win32_security_attributes;
  size_t max_size;
  unsigned short usage;
  unsigned char reserved[54];
} rmmjs_CUmemPoolProps;

enum {
  RMMJS_CUDA_SUCCESS = 0,
  RMMJS_CUDA_ERROR_INVALID_VALUE = 1,
  RMMJS_CUDA_ERROR_OUT_OF_MEMORY = 2,
  RMMJS_CUDA_ERROR_NOT_INITIALIZED = 3,
  RMMJS_CUDA_ERROR_NO_DEVICE = 100,
  RMMJS_CUDA_ERROR_INVALID_DEVICE = 101,
  RMMJS_CUDA_ERROR_INVALID_CONTEXT = 201,
  RMMJS_CUDA_ERROR_MAP_FAILED = 205,
  RMMJS_CUDA_ERROR_ALREADY_MAPPED = 208,
  RMMJS_CUDA_ERROR_INVALID_HANDLE = 400,
  RMMJS_CUDA_ERROR_NOT_FOUND = 500,
  RMMJS_CUDA_ERROR_NOT_READY = 600,
  RMMJS_CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED = 712,
  RMMJS_CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED = 713,
  RMMJS_CUDA_ERROR_NOT_SUPPORTED = 801,

  RMMJS_CU_STREAM_NON_BLOCKING = 0x1,
  RMMJS_CU_EVENT_DISABLE_TIMING = 0x2,
  RMMJS_CU_MEM_ATTACH_GLOBAL = 0x1,
  RMMJS_CU_MEM_ATTACH_HOST = 0x2,
  RMMJS_CU_MEMHOSTALLOC_PORTABLE = 0x1,
  RMMJS_CU_MEMHOSTALLOC_DEVICEMAP = 0x2,
  RMMJS_CU_MEMHOSTALLOC_WRITECOMBINED = 0x4,
  RMMJS_CU_MEMHOSTREGISTER_PORTABLE = 0x1,
  RMMJS_CU_MEMHOSTREGISTER_DEVICEMAP = 0x2,

  RMMJS_CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS = 88,
  RMMJS_CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS = 89,
  RMMJS_CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED = 115,
  RMMJS_CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES = 119,

  RMMJS_CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2,
  RMMJS_CU_POINTER_ATTRIBUTE_IS_MANAGED = 8,
  RMMJS_CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9,
  RMMJS_CU_POINTER_ATTRIBUTE_RANGE_START_ADDR = 11,
  RMMJS_CU_POINTER_ATTRIBUTE_RANGE_SIZE = 12,
  RMMJS_CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE = 17,
  RMMJS_CU_MEMORYTYPE_HOST = 1,
  RMMJS_CU_MEMORYTYPE_DEVICE = 2,

  RMMJS_CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE = 7,
  RMMJS_CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID = 8,

  RMMJS_CU_MEM_LOCATION_TYPE_INVALID = 0,
  RMMJS_CU_MEM_LOCATION_TYPE_DEVICE = 1,
  RMMJS_CU_MEM_LOCATION_TYPE_HOST = 2,
  RMMJS_CU_MEM_ALLOCATION_TYPE_PINNED = 1,
  RMMJS_CU_MEM_HANDLE_TYPE_NONE = 0,
  RMMJS_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR = 1,
  RMMJS_CU_MEMPOOL_ATTR_RELEASE_THRESHOLD = 4,
  RMMJS_CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS = 0x1,
  RMMJS_CU_MEM_ADVISE_SET_PREFERRED_LOCATION = 3
};

/* One function pointer per driver entry point, looked up by its exact (versioned) name. The
 * layout is append-only: a new entry point goes at the end, and RMMJS_DRIVER_API_VERSION goes up. */
#define RMMJS_DRIVER_FUNCTIONS(X)                                                                                      \
  X(cuGetErrorName, "cuGetErrorName", rmmjs_CUresult, (rmmjs_CUresult, const char**))                                  \
  X(cuGetErrorString, "cuGetErrorString", rmmjs_CUresult, (rmmjs_CUresult, const char**))                              \
  X(cuInit, "cuInit", rmmjs_CUresult, (unsigned int))                                                                  \
  X(cuDriverGetVersion, "cuDriverGetVersion", rmmjs_CUresult, (int*))                                                  \
  X(cuDeviceGetCount, "cuDeviceGetCount", rmmjs_CUresult, (int*))                                                      \
  X(cuDeviceGet, "cuDeviceGet", rmmjs_CUresult, (rmmjs_CUdevice*, int))                                                \
  X(cuDeviceGetAttribute, "cuDeviceGetAttribute", rmmjs_CUresult, (int*, int, rmmjs_CUdevice))                         \
  X(cuDeviceGetName, "cuDeviceGetName", rmmjs_CUresult, (char*, int, rmmjs_CUdevice))                                  \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", rmmjs_CUresult, (rmmjs_CUcontext*, rmmjs_CUdevice))          \
  X(cuCtxGetCurrent, "cuCtxGetCurrent", rmmjs_CUresult, (rmmjs_CUcontext*))                                            \
  X(cuCtxSetCurrent, "cuCtxSetCurrent", rmmjs_CUresult, (rmmjs_CUcontext))                                             \
  X(cuCtxGetDevice, "cuCtxGetDevice", rmmjs_CUresult, (rmmjs_CUdevice*))                                               \
  X(cuCtxSynchronize, "cuCtxSynchronize", rmmjs_CUresult, (void))                                                      \
  X(cuCtxGetStreamPriorityRange, "cuCtxGetStreamPriorityRange", rmmjs_CUresult, (int*, int*))                          \
  X(cuMemGetInfo, "cuMemGetInfo_v2", rmmjs_CUresult, (size_t*, size_t*))                                               \
  X(cuMemAlloc, "cuMemAlloc_v2", rmmjs_CUresult, (rmmjs_CUdeviceptr*, size_t))                                         \
  X(cuMemFree, "cuMemFree_v2", rmmjs_CUresult, (rmmjs_CUdeviceptr))                                                    \
  X(cuMemAllocManaged, "cuMemAllocManaged", rmmjs_CUresult, (rmmjs_CUdeviceptr*, size_t, unsigned int))                \
  X(cuMemHostAlloc, "cuMemHostAlloc", rmmjs_CUresult, (void**, size_t, unsigned int))                                  \
  X(cuMemFreeHost, "cuMemFreeHost", rmmjs_CUresult, (void*))                                                           \
  X(cuMemcpyAsync, "cuMemcpyAsync", rmmjs_CUresult, (rmmjs_CUdeviceptr, rmmjs_CUdeviceptr, size_t, rmmjs_CUstream))    \
  X(cuMemsetD8Async, "cuMemsetD8Async", rmmjs_CUresult, (rmmjs_CUdeviceptr, unsigned char, size_t, rmmjs_CUstream))    \
  X(cuMemPrefetchAsync, "cuMemPrefetchAsync_v2", rmmjs_CUresult,                                                       \
    (rmmjs_CUdeviceptr, size_t, rmmjs_CUmemLocation, unsigned int, rmmjs_CUstream))                                    \
  X(cuMemAdvise, "cuMemAdvise_v2", rmmjs_CUresult, (rmmjs_CUdeviceptr, size_t, int, rmmjs_CUmemLocation))              \
  X(cuPointerGetAttribute, "cuPointerGetAttribute", rmmjs_CUresult, (void*, int, rmmjs_CUdeviceptr))                   \
  X(cuMemRangeGetAttribute, "cuMemRangeGetAttribute", rmmjs_CUresult, (void*, size_t, int, rmmjs_CUdeviceptr, size_t)) \
  X(cuStreamCreateWithPriority, "cuStreamCreateWithPriority", rmmjs_CUresult, (rmmjs_CUstream*, unsigned int, int))    \
  X(cuStreamDestroy, "cuStreamDestroy_v2", rmmjs_CUresult, (rmmjs_CUstream))                                           \
  X(cuStreamSynchronize, "cuStreamSynchronize", rmmjs_CUresult, (rmmjs_CUstream))                                      \
  X(cuStreamQuery, "cuStreamQuery", rmmjs_CUresult, (rmmjs_CUstream))                                                  \
  X(cuStreamGetId, "cuStreamGetId", rmmjs_CUresult, (rmmjs_CUstream, unsigned long long*))                             \
  X(cuStreamWaitEvent, "cuStreamWaitEvent", rmmjs_CUresult, (rmmjs_CUstream, rmmjs_CUevent, unsigned int))             \
  X(cuLaunchHostFunc, "cuLaunchHostFunc", rmmjs_CUresult, (rmmjs_CUstream, rmmjs_CUhostFn, void*))                     \
  X(cuEventCreate, "cuEventCreate", rmmjs_CUresult, (rmmjs_CUevent*, unsigned int))                                    \
  X(cuEventDestroy, "cuEventDestroy_v2", rmmjs_CUresult, (rmmjs_CUevent))                                              \
  X(cuEventRecord, "cuEventRecord", rmmjs_CUresult, (rmmjs_CUevent, rmmjs_CUstream))                                   \
  X(cuEventSynchronize, "cuEventSynchronize", rmmjs_CUresult, (rmmjs_CUevent))                                         \
  X(cuEventQuery, "cuEventQuery", rmmjs_CUresult, (rmmjs_CUevent))                                                     \
  X(cuDeviceGetDefaultMemPool, "cuDeviceGetDefaultMemPool", rmmjs_CUresult, (rmmjs_CUmemoryPool*, rmmjs_CUdevice))     \
  X(cuMemPoolCreate, "cuMemPoolCreate", rmmjs_CUresult, (rmmjs_CUmemoryPool*, const rmmjs_CUmemPoolProps*))            \
  X(cuMemPoolDestroy, "cuMemPoolDestroy", rmmjs_CUresult, (rmmjs_CUmemoryPool))                                        \
  X(cuMemPoolSetAttribute, "cuMemPoolSetAttribute", rmmjs_CUresult, (rmmjs_CUmemoryPool, int, void*))                  \
  X(cuMemPoolTrimTo, "cuMemPoolTrimTo", rmmjs_CUresult, (rmmjs_CUmemoryPool, size_t))                                  \
  X(cuMemAllocFromPoolAsync, "cuMemAllocFromPoolAsync", rmmjs_CUresult,                                                \
    (rmmjs_CUdeviceptr*, size_t, rmmjs_CUmemoryPool, rmmjs_CUstream))                                                  \
  X(cuMemFreeAsync, "cuMemFreeAsync", rmmjs_CUresult, (rmmjs_CUdeviceptr, rmmjs_CUstream))                             \
  /* version 2: page-locking host memory, CUDA IPC */                                                                  \
  X(cuMemHostRegister, "cuMemHostRegister_v2", rmmjs_CUresult, (void*, size_t, unsigned int))                          \
  X(cuMemHostUnregister, "cuMemHostUnregister", rmmjs_CUresult, (void*))                                               \
  X(cuMemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2", rmmjs_CUresult,                                         \
    (rmmjs_CUdeviceptr*, void*, unsigned int))                                                                         \
  X(cuIpcGetMemHandle, "cuIpcGetMemHandle", rmmjs_CUresult, (rmmjs_CUipcMemHandle*, rmmjs_CUdeviceptr))                \
  X(cuIpcOpenMemHandle, "cuIpcOpenMemHandle_v2", rmmjs_CUresult,                                                       \
    (rmmjs_CUdeviceptr*, rmmjs_CUipcMemHandle, unsigned int))                                                          \
  X(cuIpcCloseMemHandle, "cuIpcCloseMemHandle", rmmjs_CUresult, (rmmjs_CUdeviceptr))                                   \
  X(cuMemGetAddressRange, "cuMemGetAddressRange_v2", rmmjs_CUresult, (rmmjs_CUdeviceptr*, size_t*, rmmjs_CUdeviceptr)) \
  X(cuDeviceGetUuid, "cuDeviceGetUuid_v2", rmmjs_CUresult, (rmmjs_CUuuid*, rmmjs_CUdevice))                            \
  X(cuPointerGetAttributes, "cuPointerGetAttributes", rmmjs_CUresult, (unsigned int, int*, void**, rmmjs_CUdeviceptr)) \
  X(cuMemPoolExportToShareableHandle, "cuMemPoolExportToShareableHandle", rmmjs_CUresult,                              \
    (void*, rmmjs_CUmemoryPool, int, unsigned long long))                                                              \
  X(cuMemPoolImportFromShareableHandle, "cuMemPoolImportFromShareableHandle", rmmjs_CUresult,                          \
    (rmmjs_CUmemoryPool*, void*, int, unsigned long long))                                                             \
  X(cuMemPoolExportPointer, "cuMemPoolExportPointer", rmmjs_CUresult,                                                  \
    (rmmjs_CUmemPoolPtrExportData*, rmmjs_CUdeviceptr))                                                                \
  X(cuMemPoolImportPointer, "cuMemPoolImportPointer", rmmjs_CUresult,                                                  \
    (rmmjs_CUdeviceptr*, rmmjs_CUmemoryPool, rmmjs_CUmemPoolPtrExportData*))                                           \
  /* version 3: the context of a stream */                                                                             \
  X(cuStreamGetCtx, "cuStreamGetCtx", rmmjs_CUresult, (rmmjs_CUstream, rmmjs_CUcontext*))

typedef struct rmmjs_driver_api {
#define RMMJS_DRIVER_MEMBER(name, symbol, ret, args) ret(*name) args;
  RMMJS_DRIVER_FUNCTIONS(RMMJS_DRIVER_MEMBER)
#undef RMMJS_DRIVER_MEMBER
} rmmjs_driver_api;

/* The layout of rmmjs_driver_api. 1: the entry points of ABI 1.1 and 1.2 (up to cuMemFreeAsync).
 * 2: page-locking existing host memory (cuMemHostRegister, cuMemHostUnregister), the device
 * address of mapped host memory (cuMemHostGetDevicePointer) and CUDA IPC (cuIpcGetMemHandle to
 * cuMemPoolImportPointer). 3: the context a stream belongs to (cuStreamGetCtx). */
#define RMMJS_DRIVER_API_VERSION 3
#define RMMJS_DRIVER_API_SIZE_1 (offsetof(rmmjs_driver_api, cuMemFreeAsync) + sizeof(void*))
#define RMMJS_DRIVER_API_SIZE_2 (offsetof(rmmjs_driver_api, cuMemPoolImportPointer) + sizeof(void*))
#define RMMJS_DRIVER_API_SIZE_3 (offsetof(rmmjs_driver_api, cuStreamGetCtx) + sizeof(void*))

/* sizeof(rmmjs_driver_api) of the table core->driver() returns: core->driver_size, or the
 * version 1 layout for a core older than ABI 1.2 (which does not say). */
static inline size_t rmmjs_driver_size(const rmmjs_core_api* core) {
  return core->size >= RMMJS_CORE_API_SIZE_1_2 ? core->driver_size : RMMJS_DRIVER_API_SIZE_1;
}

/* Whether core's driver table has the entry point `member` (a table from an older core may end
 * before it). The pointer itself is set whenever core->driver() is not NULL. */
#define RMMJS_DRIVER_HAS(core, member) (rmmjs_driver_size(core) >= offsetof(rmmjs_driver_api, member) + sizeof(void*))

#ifdef __cplusplus
}
#endif

#endif /* RMMJS_CUDA_DRIVER_H */
