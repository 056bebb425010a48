// Stream-ordered allocation from CUDA memory pools (cuMemAllocFromPoolAsync / cuMemFreeAsync):
// CudaAsyncMemoryResource owns a pool it creates; CudaAsyncViewMemoryResource uses one it is
// given. RMM's cuda_async_memory_resource and cuda_async_view_memory_resource.
#include <cstdint>
#include <limits>

#include "resources/resource.h"
#include "rmmjs/resource.hpp"
#include "runtime/driver.h"
#include "runtime/errors.h"
#include "runtime/logger.h"

namespace rmmjs {
namespace {

rmmjs_CUmemoryPool PoolOf(uintptr_t handle) { return reinterpret_cast<rmmjs_CUmemoryPool>(handle); }

// Whether a resource created the pool it allocates from (and destroys it) or was given it.
enum class PoolOwnership { kOwned, kBorrowed };

template <PoolOwnership kOwnership>
class PoolResource {
 public:
  static constexpr bool kOwned = kOwnership == PoolOwnership::kOwned;
  static constexpr const char* kTypeName = kOwned ? "CudaAsyncMemoryResource" : "CudaAsyncViewMemoryResource";

  PoolResource(int device, uintptr_t pool) : device_(device), pool_(pool) {}
  ~PoolResource() {
    if constexpr (kOwned) {
      ContextScope scope(device_);
      int result = DriverApi()->cuMemPoolDestroy(PoolOf(pool_));
      if (result != RMMJS_CUDA_SUCCESS) {
        Log(RMMJS_LOG_ERROR, std::string(kTypeName) + ": cuMemPoolDestroy failed: " + DescribeCudaError(result));
      }
    }
  }
  PoolResource(const PoolResource&) = delete;
  PoolResource& operator=(const PoolResource&) = delete;

  // The pool names the device, so the thread's context need not be asked for (kTrust).
  rmmjs_status Allocate(size_t bytes, rmmjs_stream stream, void** out) {
    ContextScope scope(device_, ContextCheck::kTrust);
    RMMJS_TRY(scope.status());
    rmmjs_CUdeviceptr ptr = 0;
    int result =
        DriverApi()->cuMemAllocFromPoolAsync(&ptr, bytes, PoolOf(pool_), reinterpret_cast<rmmjs_CUstream>(stream));
    if (result != RMMJS_CUDA_SUCCESS) return FailCudaAllocation(result, "cuMemAllocFromPoolAsync", bytes);
    *out = reinterpret_cast<void*>(ptr);
    return RMMJS_OK;
  }

  rmmjs_status Deallocate(void* ptr, size_t bytes, rmmjs_stream stream) {
    ContextScope scope(device_, ContextCheck::kTrust);
    RMMJS_TRY(scope.status());
    int result =
        DriverApi()->cuMemFreeAsync(reinterpret_cast<rmmjs_CUdeviceptr>(ptr), reinterpret_cast<rmmjs_CUstream>(stream));
    if (result != RMMJS_CUDA_SUCCESS) return FreeFailure(result, "cuMemFreeAsync", kTypeName, bytes);
    return RMMJS_OK;
  }

  bool IsEqual(const PoolResource& other) const { return pool_ == other.pool_; }
  uintptr_t pool() const { return pool_; }

 private:
  int device_;
  uintptr_t pool_;
};

using CudaAsyncMemoryResource = PoolResource<PoolOwnership::kOwned>;
using CudaAsyncViewMemoryResource = PoolResource<PoolOwnership::kBorrowed>;

rmmjs_status RequireMemoryPools(int device) {
  RMMJS_TRY(RequireCuda());
  RMMJS_TRY(ValidateDevice(device));
  int supported = 0;
  int result = DriverApi()->cuDeviceGetAttribute(&supported, RMMJS_CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, device);
  if (result != RMMJS_CUDA_SUCCESS) return CudaFailure(result, "cuDeviceGetAttribute");
  if (supported == 0) {
    return SetError(RMMJS_ERR_LOGIC, "cudaMallocAsync not supported with this CUDA driver/runtime version");
  }
  return RMMJS_OK;
}

}  // namespace

rmmjs_status CreateCudaAsyncMemoryResource(int device, const size_t* initial_pool_size, const size_t* release_threshold,
                                           bool enable_ipc, rmmjs_resource** out) {
  RMMJS_TRY(RequireMemoryPools(device));
  const rmmjs_driver_api* api = DriverApi();
  if (enable_ipc) {
    int handle_types = 0;
    int result =
        api->cuDeviceGetAttribute(&handle_types, RMMJS_CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES, device);
    if (result != RMMJS_CUDA_SUCCESS) return CudaFailure(result, "cuDeviceGetAttribute");
    if ((handle_types & RMMJS_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) == 0) {
      return SetError(RMMJS_ERR_LOGIC, "Requested IPC memory handle type not supported");
    }
  }
  ContextScope scope(device);
  RMMJS_TRY(scope.status());
  rmmjs_CUmemPoolProps props{};
  props.alloc_type = RMMJS_CU_MEM_ALLOCATION_TYPE_PINNED;
  props.handle_types = enable_ipc ? RMMJS_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR : RMMJS_CU_MEM_HANDLE_TYPE_NONE;
  props.location.type = RMMJS_CU_MEM_LOCATION_TYPE_DEVICE;
  props.location.id = device;
  rmmjs_CUmemoryPool pool = nullptr;
  int result = api->cuMemPoolCreate(&pool, &props);
  if (result != RMMJS_CUDA_SUCCESS) return CudaFailure(result, "cuMemPoolCreate");
  uint64_t threshold = release_threshold ? *release_threshold : std::numeric_limits<uint64_t>::max();
  result = api->cuMemPoolSetAttribute(pool, RMMJS_CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold);
  if (result != RMMJS_CUDA_SUCCESS) {
    api->cuMemPoolDestroy(pool);
    return CudaFailure(result, "cuMemPoolSetAttribute");
  }
  // From here the resource owns the pool (its destructor destroys it).
  RMMJS_TRY(NewResource<CudaAsyncMemoryResource>(device, RMMJS_RESOURCE_DEVICE_ACCESSIBLE, out, device,
                                                 reinterpret_cast<uintptr_t>(pool)));
  if (initial_pool_size != nullptr && *initial_pool_size > 0) {
    void* ptr = nullptr;
    rmmjs_status status = Allocate(*out, *initial_pool_size, 0, &ptr);
    if (status == RMMJS_OK) status = Deallocate(*out, ptr, *initial_pool_size, 0);
    if (status != RMMJS_OK) {
      Release(*out);
      *out = nullptr;
      return status;
    }
  }
  return RMMJS_OK;
}

namespace {

// The device whose default pool `pool` is, else `current`: the driver has no call that names a
// pool's device, so another pool's view belongs to the device current at its creation.
int DeviceOfPool(uintptr_t pool, int current) {
  const rmmjs_driver_api* api = DriverApi();
  if (api == nullptr || !CudaAvailable()) return current;
  for (int device = 0; device < Driver().device_count; ++device) {
    rmmjs_CUmemoryPool candidate = nullptr;
    if (api->cuDeviceGetDefaultMemPool(&candidate, device) == RMMJS_CUDA_SUCCESS &&
        reinterpret_cast<uintptr_t>(candidate) == pool) {
      return device;
    }
  }
  return current;
}

}  // namespace

rmmjs_status CreateCudaAsyncViewMemoryResource(int current, uintptr_t pool_handle, rmmjs_resource** out) {
  if (pool_handle == 0 && CudaAvailable()) return SetError(RMMJS_ERR_LOGIC, "Unexpected null pool handle.");
  const int device = DeviceOfPool(pool_handle, current);
  RMMJS_TRY(RequireMemoryPools(device));
  return NewResource<CudaAsyncViewMemoryResource>(device, RMMJS_RESOURCE_DEVICE_ACCESSIBLE, out, device, pool_handle);
}

bool AsyncPoolHandle(const rmmjs_resource* mr, bool view, uintptr_t* pool) {
  if (!view && IsA<CudaAsyncMemoryResource>(mr)) {
    *pool = ImplOf<CudaAsyncMemoryResource>(mr).pool();
    return true;
  }
  if (view && IsA<CudaAsyncViewMemoryResource>(mr)) {
    *pool = ImplOf<CudaAsyncViewMemoryResource>(mr).pool();
    return true;
  }
  return false;
}

}  // namespace rmmjs
