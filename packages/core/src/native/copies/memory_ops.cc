#include "copies/memory_ops.h"

#include <sys/sysinfo.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>

#include "runtime/driver.h"
#include "runtime/errors.h"

namespace rmmjs {
namespace {

rmmjs_CUdeviceptr DevicePtr(const void* ptr) { return reinterpret_cast<rmmjs_CUdeviceptr>(ptr); }
rmmjs_CUstream Stream(rmmjs_stream stream) { return reinterpret_cast<rmmjs_CUstream>(stream); }

// MemAvailable from /proc/meminfo (what the kernel could hand out), else sysinfo's free RAM.
rmmjs_status HostMemInfo(size_t* free_bytes, size_t* total_bytes) {
  struct sysinfo info {};
  if (sysinfo(&info) != 0) return SetError(RMMJS_ERR_LOGIC, "sysinfo failed");
  *total_bytes = static_cast<size_t>(info.totalram) * info.mem_unit;
  *free_bytes = static_cast<size_t>(info.freeram) * info.mem_unit;
  if (FILE* meminfo = std::fopen("/proc/meminfo", "r")) {
    char line[256];
    unsigned long long kib = 0;
    while (std::fgets(line, sizeof(line), meminfo) != nullptr) {
      if (std::sscanf(line, "MemAvailable: %llu kB", &kib) == 1) {
        *free_bytes = static_cast<size_t>(kib) * 1024;
        break;
      }
    }
    std::fclose(meminfo);
  }
  return RMMJS_OK;
}

}  // namespace

rmmjs_status MemcpyAsync(void* dst, const void* src, size_t bytes, rmmjs_stream stream) {
  if (bytes == 0) return RMMJS_OK;
  const rmmjs_driver_api* api = DriverApi();
  if (api == nullptr) {
    RMMJS_TRY(RequireUsableDriver());
    std::memmove(dst, src, bytes);
    return RMMJS_OK;
  }
  int result = api->cuMemcpyAsync(DevicePtr(dst), DevicePtr(src), bytes, Stream(stream));
  if (result != RMMJS_CUDA_SUCCESS) return CudaFailure(result, "cuMemcpyAsync");
  return RMMJS_OK;
}

rmmjs_status MemsetAsync(void* dst, int value, size_t bytes, rmmjs_stream stream) {
  if (bytes == 0) return RMMJS_OK;
  const rmmjs_driver_api* api = DriverApi();
  if (api == nullptr) {
    RMMJS_TRY(RequireUsableDriver());
    std::memset(dst, value, bytes);
    return RMMJS_OK;
  }
  int result = api->cuMemsetD8Async(DevicePtr(dst), static_cast<unsigned char>(value), bytes, Stream(stream));
  if (result != RMMJS_CUDA_SUCCESS) return CudaFailure(result, "cuMemsetD8Async");
  return RMMJS_OK;
}

rmmjs_status MemGetInfo(int device, size_t* free_bytes, size_t* total_bytes) {
  RMMJS_TRY(ValidateDevice(device));
  const rmmjs_driver_api* api = DriverApi();
  if (api == nullptr) return HostMemInfo(free_bytes, total_bytes);
  ContextScope scope(device);
  RMMJS_TRY(scope.status());
  int result = api->cuMemGetInfo(free_bytes, total_bytes);
  if (result != RMMJS_CUDA_SUCCESS) return CudaFailure(result, "cuMemGetInfo_v2");
  return RMMJS_OK;
}

bool IsManaged(const void* ptr) {
  const rmmjs_driver_api* api = DriverApi();
  if (api == nullptr || ptr == nullptr) return false;
  unsigned int managed = 0;
  // Memory the driver does not know (host memory) answers with an error: not managed.
  return api->cuPointerGetAttribute(&managed, RMMJS_CU_POINTER_ATTRIBUTE_IS_MANAGED, DevicePtr(ptr)) ==
             RMMJS_CUDA_SUCCESS &&
         managed != 0;
}

// Whether device (or the current one, for the host) can access managed memory concurrently
// with the CPU; read once per device.
bool ConcurrentManagedAccess(int device) {
  static std::atomic<int>* cache = [] {
    auto* values = new std::atomic<int>[std::max(1, Driver().device_count)];
    for (int i = 0; i < std::max(1, Driver().device_count); i++) values[i] = -1;
    return values;
  }();
  if (device < 0 && GetCurrentDevice(&device) != RMMJS_OK) return false;
  int value = cache[device].load(std::memory_order_relaxed);
  if (value < 0) {
    value = 0;
    DriverApi()->cuDeviceGetAttribute(&value, RMMJS_CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS, device);
    cache[device].store(value, std::memory_order_relaxed);
  }
  return value != 0;
}

// As RMM's rmm::prefetch: nothing without concurrent managed access, and the driver's
// CUDA_ERROR_INVALID_VALUE (memory it cannot prefetch: not managed) is not an error.
rmmjs_status Prefetch(void* ptr, size_t bytes, int device, rmmjs_stream stream) {
  const rmmjs_driver_api* api = DriverApi();
  if (api == nullptr || bytes == 0 || ptr == nullptr) return RMMJS_OK;
  if (device != -1) RMMJS_TRY(ValidateDevice(device));
  if (!ConcurrentManagedAccess(device)) return RMMJS_OK;
  rmmjs_CUmemLocation location{};
  location.type = device == -1 ? RMMJS_CU_MEM_LOCATION_TYPE_HOST : RMMJS_CU_MEM_LOCATION_TYPE_DEVICE;
  location.id = device == -1 ? 0 : device;
  int result = api->cuMemPrefetchAsync(DevicePtr(ptr), bytes, location, 0, Stream(stream));
  if (result != RMMJS_CUDA_SUCCESS && result != RMMJS_CUDA_ERROR_INVALID_VALUE) {
    return CudaFailure(result, "cuMemPrefetchAsync_v2");
  }
  return RMMJS_OK;
}

rmmjs_status LastPrefetchLocation(void* ptr, size_t bytes, int* location) {
  *location = -2;
  if (bytes == 0 || !IsManaged(ptr)) return RMMJS_OK;
  const rmmjs_driver_api* api = DriverApi();
  int type = 0;
  int id = 0;
  int result = api->cuMemRangeGetAttribute(
      &type, sizeof(type), RMMJS_CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE, DevicePtr(ptr), bytes);
  if (result == RMMJS_CUDA_SUCCESS) {
    result = api->cuMemRangeGetAttribute(&id, sizeof(id), RMMJS_CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID,
                                         DevicePtr(ptr), bytes);
  }
  if (result != RMMJS_CUDA_SUCCESS) return CudaFailure(result, "cuMemRangeGetAttribute");
  if (type == RMMJS_CU_MEM_LOCATION_TYPE_DEVICE)
    *location = id;
  else if (type == RMMJS_CU_MEM_LOCATION_TYPE_HOST)
    *location = -1;
  return RMMJS_OK;
}

}  // namespace rmmjs
