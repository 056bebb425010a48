// Stream-ordered memory pools. Freed pool memory goes straight back to the device budget: the
// fake keeps no reserve, so the release threshold and trimming change nothing.
#include <sys/mman.h>

#include "state.h"

using namespace fake;

namespace {

constexpr int kPoolReuseFollowEventDependencies = 1;
constexpr int kPoolReuseAllowInternalDependencies = 3;
constexpr int kPoolReservedMemoryHigh = 6;
constexpr int kPoolUsedMemoryHigh = 8;

bool PoolsSupported(const State& state, int device) {
  return state.Attribute(device, RMMJS_CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED) != 0;
}

int AllocateFromPool(State& state, CUmemPoolHandle_st* pool, size_t bytes, rmmjs_CUdeviceptr* pointer) {
  uintptr_t address = 0;
  int result = state.Allocate(pool->device, bytes, AllocationKind::kPool, pool, &address);
  if (result == kSuccess) *pointer = address;
  return result;
}

}  // namespace

extern "C" rmmjs_CUresult cuDeviceGetDefaultMemPool(rmmjs_CUmemoryPool* pool, rmmjs_CUdevice device) {
  Entry call(Symbol::cuDeviceGetDefaultMemPool);
  if (call.status() != kSuccess) return call.status();
  State& state = call.state();
  if (pool == nullptr) return kInvalidValue;
  if (!state.ValidDevice(device)) return kInvalidDevice;
  if (!PoolsSupported(state, device)) return kNotSupported;
  *pool = state.devices[device].default_pool.get();
  return kSuccess;
}

extern "C" rmmjs_CUresult cuMemPoolCreate(rmmjs_CUmemoryPool* pool, const rmmjs_CUmemPoolProps* props) {
  Entry call(Symbol::cuMemPoolCreate);
  if (call.status() != kSuccess) return call.status();
  State& state = call.state();
  if (pool == nullptr || props == nullptr || props->alloc_type != RMMJS_CU_MEM_ALLOCATION_TYPE_PINNED ||
      props->location.type != RMMJS_CU_MEM_LOCATION_TYPE_DEVICE || !state.ValidDevice(props->location.id)) {
    return kInvalidValue;
  }
  int device = props->location.id;
  if (!PoolsSupported(state, device)) return kNotSupported;
  switch (props->handle_types) {
    case RMMJS_CU_MEM_HANDLE_TYPE_NONE:
      break;
    case RMMJS_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR:
      if ((state.Attribute(device, RMMJS_CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES) &
           RMMJS_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) == 0) {
        return kNotSupported;
      }
      break;
    default:
      return kInvalidValue;
  }
  state.all_pools.emplace_back(new CUmemPoolHandle_st{device, false, props->handle_types, 0, 0, state.next_serial++});
  *pool = state.all_pools.back().get();
  state.live_pools.insert(*pool);
  return kSuccess;
}

// As in the driver, a pool with live allocations is destroyed at once (its handle is invalid
// from then on) while the allocations stay valid, counted, and freeable with cuMemFreeAsync.
extern "C" rmmjs_CUresult cuMemPoolDestroy(rmmjs_CUmemoryPool pool) {
  Entry call(Symbol::cuMemPoolDestroy);
  if (call.status() != kSuccess) return call.status();
  // Default pools are never in live_pools, so they cannot be destroyed.
  if (call.state().live_pools.erase(pool) != 1) return kInvalidValue;
  // An imported pool's view of the exporter's heap goes with it (imports still alive keep it).
  if (pool->imported && pool->live_allocations == 0) {
    munmap(pool->mapping, DeviceHeap::kReserved);
    pool->mapping = nullptr;
  }
  return kSuccess;
}

extern "C" rmmjs_CUresult cuMemPoolSetAttribute(rmmjs_CUmemoryPool pool, int attribute, void* value) {
  Entry call(Symbol::cuMemPoolSetAttribute);
  if (call.status() != kSuccess) return call.status();
  if (!call.state().ValidPool(pool) || value == nullptr) return kInvalidValue;
  if (attribute >= kPoolReuseFollowEventDependencies && attribute <= kPoolReuseAllowInternalDependencies) {
    return kSuccess;  // reuse policies (int): nothing to do without a reserve
  }
  if (attribute == RMMJS_CU_MEMPOOL_ATTR_RELEASE_THRESHOLD) {
    pool->release_threshold = *static_cast<const uint64_t*>(value);
    return kSuccess;
  }
  // The high-water marks can only be reset to 0; the current amounts are read-only.
  if (attribute == kPoolReservedMemoryHigh || attribute == kPoolUsedMemoryHigh) {
    return *static_cast<const uint64_t*>(value) == 0 ? kSuccess : kInvalidValue;
  }
  return kInvalidValue;
}

extern "C" rmmjs_CUresult cuMemPoolTrimTo(rmmjs_CUmemoryPool pool, size_t keep_bytes) {
  Entry call(Symbol::cuMemPoolTrimTo);
  if (call.status() != kSuccess) return call.status();
  (void)keep_bytes;
  return call.state().ValidPool(pool) ? kSuccess : kInvalidValue;
}

extern "C" rmmjs_CUresult cuMemAllocFromPoolAsync(rmmjs_CUdeviceptr* pointer, size_t bytes, rmmjs_CUmemoryPool pool,
                                                  rmmjs_CUstream stream) {
  Entry call(Symbol::cuMemAllocFromPoolAsync);
  if (call.status() != kSuccess) return call.status();
  State& state = call.state();
  // As the driver documents, an imported pool cannot make allocations.
  if (pointer == nullptr || !state.ValidPool(pool) || pool->imported) return kInvalidValue;
  if (int result = state.CheckStream(stream)) return result;
  return AllocateFromPool(state, pool, bytes, pointer);
}

extern "C" rmmjs_CUresult cuMemAllocAsync(rmmjs_CUdeviceptr* pointer, size_t bytes, rmmjs_CUstream stream) {
  Entry call(Symbol::cuMemAllocAsync);
  if (call.status() != kSuccess) return call.status();
  State& state = call.state();
  if (pointer == nullptr) return kInvalidValue;
  if (CurrentContext() == nullptr) return kInvalidContext;
  if (int result = state.CheckStream(stream)) return result;
  if (!PoolsSupported(state, CurrentDevice())) return kNotSupported;
  return AllocateFromPool(state, state.devices[CurrentDevice()].default_pool.get(), bytes, pointer);
}

extern "C" rmmjs_CUresult cuMemFreeAsync(rmmjs_CUdeviceptr pointer, rmmjs_CUstream stream) {
  Entry call(Symbol::cuMemFreeAsync);
  if (call.status() != kSuccess) return call.status();
  State& state = call.state();
  if (int result = state.CheckStream(stream)) return result;
  if (pointer == 0) return kSuccess;
  auto allocation = state.allocations.find(pointer);
  if (allocation == state.allocations.end() ||
      (allocation->second.kind != AllocationKind::kPool && allocation->second.kind != AllocationKind::kPoolImported)) {
    return kInvalidValue;
  }
  state.Release(allocation);
  return kSuccess;
}
