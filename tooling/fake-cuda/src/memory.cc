// Device, managed and pinned host memory over the C heap: a device pointer is a host pointer.
#include <cstring>

#include "state.h"

using namespace fake;

namespace {

constexpr int kPointerAttributeDeviceOrdinal = 9;
constexpr unsigned kMemAttachHost = 0x2;
constexpr unsigned kMemHostAllocWriteCombined = 0x4;
constexpr int kRangeAttributePreferredLocationType = 5;
constexpr int kRangeAttributePreferredLocationId = 6;

enum Advice {
  kAdviseSetReadMostly = 1,
  kAdviseUnsetReadMostly = 2,
  kAdviseSetPreferredLocation = RMMJS_CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
  kAdviseUnsetPreferredLocation = 4,
  kAdviseSetAccessedBy = 5,
  kAdviseUnsetAccessedBy = 6,
};

// cuMemFree_v2 frees device, managed and pool memory, and an imported pool allocation (the
// importer's side of it); an IPC mapping is closed with cuIpcCloseMemHandle instead.
bool FreedByMemFree(AllocationKind kind) {
  return kind != AllocationKind::kPinnedHost && kind != AllocationKind::kIpcMapped;
}

// The managed allocation holding all of [address, address + bytes), or allocations.end().
AllocationMap::iterator ManagedRange(State& state, uintptr_t address, size_t bytes) {
  auto allocation = state.Containing(address);
  if (allocation == state.allocations.end() || allocation->second.kind != AllocationKind::kManaged || bytes == 0 ||
      state.CheckRange(address, bytes) != kSuccess) {
    return state.allocations.end();
  }
  return allocation;
}

bool AnyDeviceHas(const State& state, int attribute) {
  for (int device = 0; device < int(state.devices.size()); ++device) {
    if (state.Attribute(device, attribute) != 0) return true;
  }
  return false;
}

}  // namespace

extern "C" rmmjs_CUresult cuMemGetInfo(size_t* free_bytes, size_t* total_bytes) {
  Entry call(Symbol::cuMemGetInfo);
  if (call.status() != kSuccess) return call.status();
  if (free_bytes == nullptr || total_bytes == nullptr) return kInvalidValue;
  if (CurrentContext() == nullptr) return kInvalidContext;
  const Device& device = call.state().devices[CurrentDevice()];
  *free_bytes = device.used < device.budget ? device.budget - device.used : 0;
  *total_bytes = device.budget;
  return kSuccess;
}

extern "C" rmmjs_CUresult cuMemAlloc(rmmjs_CUdeviceptr* pointer, size_t bytes) {
  Entry call(Symbol::cuMemAlloc);
  if (call.status() != kSuccess) return call.status();
  if (pointer == nullptr) return kInvalidValue;
  if (CurrentContext() == nullptr) return kInvalidContext;
  uintptr_t address = 0;
  int result = call.state().Allocate(CurrentDevice(), bytes, AllocationKind::kDevice, nullptr, &address);
  if (result == kSuccess) *pointer = address;
  return result;
}

extern "C" rmmjs_CUresult cuMemAllocManaged(rmmjs_CUdeviceptr* pointer, size_t bytes, unsigned int flags) {
  Entry call(Symbol::cuMemAllocManaged);
  if (call.status() != kSuccess) return call.status();
  if (pointer == nullptr) return kInvalidValue;
  if (flags != RMMJS_CU_MEM_ATTACH_GLOBAL && flags != RMMJS_CU_MEM_ATTACH_HOST) return kInvalidValue;
  if (CurrentContext() == nullptr) return kInvalidContext;
  uintptr_t address = 0;
  int result = call.state().Allocate(CurrentDevice(), bytes, AllocationKind::kManaged, nullptr, &address);
  if (result == kSuccess) *pointer = address;
  return result;
}

extern "C" rmmjs_CUresult cuMemFree(rmmjs_CUdeviceptr pointer) {
  Entry call(Symbol::cuMemFree);
  if (call.status() != kSuccess) return call.status();
  if (pointer == 0) return kSuccess;
  State& state = call.state();
  auto allocation = state.allocations.find(pointer);
  if (allocation == state.allocations.end() || !FreedByMemFree(allocation->second.kind)) {
    return kInvalidValue;
  }
  state.Release(allocation);
  return kSuccess;
}

extern "C" rmmjs_CUresult cuMemHostAlloc(void** pointer, size_t bytes, unsigned int flags) {
  Entry call(Symbol::cuMemHostAlloc);
  if (call.status() != kSuccess) return call.status();
  constexpr unsigned kKnownFlags =
      RMMJS_CU_MEMHOSTALLOC_PORTABLE | RMMJS_CU_MEMHOSTALLOC_DEVICEMAP | RMMJS_CU_MEMHOSTALLOC_WRITECOMBINED;
  if (pointer == nullptr || (flags & ~kKnownFlags) != 0) return kInvalidValue;
  if (CurrentContext() == nullptr) return kInvalidContext;
  State& state = call.state();
  uintptr_t address = 0;
  int result = state.Allocate(CurrentDevice(), bytes, AllocationKind::kPinnedHost, nullptr, &address);
  if (result != kSuccess) return result;
  state.allocations.at(address).host_flags = flags;
  *pointer = reinterpret_cast<void*>(address);
  return kSuccess;
}

extern "C" rmmjs_CUresult cuMemFreeHost(void* pointer) {
  Entry call(Symbol::cuMemFreeHost);
  if (call.status() != kSuccess) return call.status();
  if (pointer == nullptr) return kSuccess;
  State& state = call.state();
  auto allocation = state.allocations.find(reinterpret_cast<uintptr_t>(pointer));
  if (allocation == state.allocations.end() || allocation->second.kind != AllocationKind::kPinnedHost) {
    return kInvalidValue;
  }
  state.Release(allocation);
  return kSuccess;
}

extern "C" rmmjs_CUresult cuMemcpyAsync(rmmjs_CUdeviceptr destination, rmmjs_CUdeviceptr source, size_t bytes,
                                        rmmjs_CUstream stream) {
  Entry call(Symbol::cuMemcpyAsync);
  if (call.status() != kSuccess) return call.status();
  State& state = call.state();
  if (int result = state.CheckStreamInCurrentContext(stream)) return result;
  if (bytes == 0) return kSuccess;
  if (destination == 0 || source == 0 || state.CheckRange(destination, bytes) != kSuccess ||
      state.CheckRange(source, bytes) != kSuccess) {
    return kInvalidValue;
  }
  std::memmove(reinterpret_cast<void*>(destination), reinterpret_cast<const void*>(source), bytes);
  return kSuccess;
}

extern "C" rmmjs_CUresult cuMemsetD8Async(rmmjs_CUdeviceptr destination, unsigned char value, size_t bytes,
                                          rmmjs_CUstream stream) {
  Entry call(Symbol::cuMemsetD8Async);
  if (call.status() != kSuccess) return call.status();
  State& state = call.state();
  if (int result = state.CheckStreamInCurrentContext(stream)) return result;
  if (bytes == 0) return kSuccess;
  if (destination == 0 || state.CheckRange(destination, bytes) != kSuccess) return kInvalidValue;
  std::memset(reinterpret_cast<void*>(destination), value, bytes);
  return kSuccess;
}

namespace {

// Writes attribute of the allocation `record` (nullptr: memory the driver does not know, which
// gets the NULL values cuPointerGetAttributes documents) starting at `start`. kInvalidValue for an
// attribute the fake does not model.
int WritePointerAttribute(int attribute, const Allocation* record, uintptr_t start, void* data) {
  switch (attribute) {
    case RMMJS_CU_POINTER_ATTRIBUTE_IS_MANAGED:
      *static_cast<unsigned int*>(data) = record != nullptr && record->kind == AllocationKind::kManaged ? 1 : 0;
      return kSuccess;
    case RMMJS_CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
      *static_cast<unsigned int*>(data) = record == nullptr                             ? 0
                                          : record->kind == AllocationKind::kPinnedHost ? RMMJS_CU_MEMORYTYPE_HOST
                                                                                        : RMMJS_CU_MEMORYTYPE_DEVICE;
      return kSuccess;
    case RMMJS_CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
      *static_cast<int*>(data) = record != nullptr ? record->device : 0;
      return kSuccess;
    case RMMJS_CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
      *static_cast<rmmjs_CUdeviceptr*>(data) = record != nullptr ? start : 0;
      return kSuccess;
    case RMMJS_CU_POINTER_ATTRIBUTE_RANGE_SIZE:
      *static_cast<size_t*>(data) = record != nullptr ? record->size : 0;
      return kSuccess;
    case RMMJS_CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
      *static_cast<rmmjs_CUmemoryPool*>(data) = record != nullptr ? record->pool : nullptr;
      return kSuccess;
    default:
      return kInvalidValue;
  }
}

}  // namespace

extern "C" rmmjs_CUresult cuPointerGetAttribute(void* data, int attribute, rmmjs_CUdeviceptr pointer) {
  Entry call(Symbol::cuPointerGetAttribute);
  if (call.status() != kSuccess) return call.status();
  State& state = call.state();
  auto allocation = state.Containing(pointer);
  if (data == nullptr || allocation == state.allocations.end()) return kInvalidValue;
  return WritePointerAttribute(attribute, &allocation->second, allocation->first, data);
}

// As documented, memory the driver does not know is no error here: its attributes are NULL.
extern "C" rmmjs_CUresult cuPointerGetAttributes(unsigned int count, int* attributes, void** data,
                                                 rmmjs_CUdeviceptr pointer) {
  Entry call(Symbol::cuPointerGetAttributes);
  if (call.status() != kSuccess) return call.status();
  State& state = call.state();
  if (count == 0 || attributes == nullptr || data == nullptr) return kInvalidValue;
  auto allocation = state.Containing(pointer);
  const Allocation* record = allocation == state.allocations.end() ? nullptr : &allocation->second;
  uintptr_t start = record != nullptr ? allocation->first : 0;
  for (unsigned int i = 0; i < count; ++i) {
    if (data[i] == nullptr) return kInvalidValue;
    if (int result = WritePointerAttribute(attributes[i], record, start, data[i])) return result;
  }
  return kSuccess;
}

extern "C" rmmjs_CUresult cuMemGetAddressRange(rmmjs_CUdeviceptr* base, size_t* size, rmmjs_CUdeviceptr pointer) {
  Entry call(Symbol::cuMemGetAddressRange);
  if (call.status() != kSuccess) return call.status();
  if (CurrentContext() == nullptr) return kInvalidContext;
  State& state = call.state();
  auto allocation = state.Containing(pointer);
  if (allocation == state.allocations.end()) return kNotFound;
  // Either output may be NULL, as in the driver.
  if (base != nullptr) *base = allocation->first;
  if (size != nullptr) *size = allocation->second.size;
  return kSuccess;
}

extern "C" rmmjs_CUresult cuMemPrefetchAsync(rmmjs_CUdeviceptr pointer, size_t bytes, rmmjs_CUmemLocation location,
                                             unsigned int flags, rmmjs_CUstream stream) {
  Entry call(Symbol::cuMemPrefetchAsync);
  if (call.status() != kSuccess) return call.status();
  State& state = call.state();
  if (int result = state.CheckStream(stream)) return result;
  auto allocation = ManagedRange(state, pointer, bytes);
  if (flags != 0 || allocation == state.allocations.end()) return kInvalidValue;
  if (location.type == RMMJS_CU_MEM_LOCATION_TYPE_DEVICE) {
    // The driver only prefetches to a device that can access managed memory concurrently.
    if (!state.ValidDevice(location.id) ||
        state.Attribute(location.id, RMMJS_CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS) == 0) {
      return kInvalidDevice;
    }
  } else if (location.type != RMMJS_CU_MEM_LOCATION_TYPE_HOST) {
    return kInvalidValue;
  }
  // Tracked per allocation, not per page as in the driver.
  allocation->second.prefetch_type = location.type;
  allocation->second.prefetch_id = location.id;
  return kSuccess;
}

// Managed memory, or (where some device has pageable memory access, i.e. HMM or ATS) any
// address outside the recorded allocations, which the fake takes for system memory. Advice on
// system memory is only checked, not recorded.
extern "C" rmmjs_CUresult cuMemAdvise(rmmjs_CUdeviceptr pointer, size_t bytes, int advice,
                                      rmmjs_CUmemLocation location) {
  Entry call(Symbol::cuMemAdvise);
  if (call.status() != kSuccess) return call.status();
  State& state = call.state();
  if (pointer == 0 || bytes == 0 || advice < kAdviseSetReadMostly || advice > kAdviseUnsetAccessedBy) {
    return kInvalidValue;
  }
  auto allocation = state.Containing(pointer);
  bool system_memory = allocation == state.allocations.end();
  if (system_memory ? !AnyDeviceHas(state, RMMJS_CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS)
                    : ManagedRange(state, pointer, bytes) == state.allocations.end()) {
    return kInvalidValue;
  }
  bool uses_location =
      advice == kAdviseSetPreferredLocation || advice == kAdviseSetAccessedBy || advice == kAdviseUnsetAccessedBy;
  if (uses_location && location.type == RMMJS_CU_MEM_LOCATION_TYPE_DEVICE) {
    int needed = system_memory ? RMMJS_CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS
                               : RMMJS_CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS;
    if (!state.ValidDevice(location.id) || state.Attribute(location.id, needed) == 0) {
      return kInvalidDevice;
    }
  } else if (uses_location && location.type != RMMJS_CU_MEM_LOCATION_TYPE_HOST) {
    return kInvalidValue;
  }
  if (!system_memory && advice == kAdviseSetPreferredLocation) {
    allocation->second.preferred_type = location.type;
    allocation->second.preferred_id = location.id;
  } else if (!system_memory && advice == kAdviseUnsetPreferredLocation) {
    allocation->second.preferred_type = RMMJS_CU_MEM_LOCATION_TYPE_INVALID;
    allocation->second.preferred_id = -2;
  }
  return kSuccess;
}

extern "C" rmmjs_CUresult cuMemRangeGetAttribute(void* data, size_t data_size, int attribute, rmmjs_CUdeviceptr pointer,
                                                 size_t bytes) {
  Entry call(Symbol::cuMemRangeGetAttribute);
  if (call.status() != kSuccess) return call.status();
  if (CurrentContext() == nullptr) return kInvalidContext;  // as the driver (seen on an H200)
  State& state = call.state();
  auto allocation = ManagedRange(state, pointer, bytes);
  if (data == nullptr || data_size != sizeof(int) || allocation == state.allocations.end()) {
    return kInvalidValue;
  }
  switch (attribute) {
    case RMMJS_CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE:
      *static_cast<int*>(data) = allocation->second.prefetch_type;
      return kSuccess;
    case RMMJS_CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID:
      *static_cast<int*>(data) = allocation->second.prefetch_id;
      return kSuccess;
    case kRangeAttributePreferredLocationType:
      *static_cast<int*>(data) = allocation->second.preferred_type;
      return kSuccess;
    case kRangeAttributePreferredLocationId:
      *static_cast<int*>(data) = allocation->second.preferred_id;
      return kSuccess;
    default:
      return kInvalidValue;
  }
}
