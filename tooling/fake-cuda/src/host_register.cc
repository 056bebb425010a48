// Page-locking host memory the caller owns (cuMemHostRegister_v2, cuMemHostUnregister) and the
// device address of mapped host memory (cuMemHostGetDevicePointer_v2). The fake only records the
// ranges: its device memory is host memory already.
#include <cstdint>
#include <iterator>

#include "state.h"

using namespace fake;

namespace {

constexpr int kHostMemoryAlreadyRegistered = RMMJS_CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
constexpr int kHostMemoryNotRegistered = RMMJS_CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
constexpr unsigned kRegisterIoMemory = 0x4;
constexpr unsigned kRegisterReadOnly = 0x8;

// The entry of a map of disjoint ranges (start -> {size, ...}) that overlaps [start, start + bytes),
// or map.end().
template <class Map>
typename Map::iterator Overlapping(Map& map, uintptr_t start, size_t bytes) {
  auto after = map.lower_bound(start + bytes);
  if (after == map.begin()) return map.end();
  auto candidate = std::prev(after);
  return candidate->first + candidate->second.size > start ? candidate : map.end();
}

}  // namespace

extern "C" rmmjs_CUresult cuMemHostRegister(void* pointer, size_t bytes, unsigned int flags) {
  Entry call(Symbol::cuMemHostRegister);
  if (call.status() != kSuccess) return call.status();
  constexpr unsigned kKnownFlags =
      RMMJS_CU_MEMHOSTREGISTER_PORTABLE | RMMJS_CU_MEMHOSTREGISTER_DEVICEMAP | kRegisterIoMemory | kRegisterReadOnly;
  uintptr_t start = reinterpret_cast<uintptr_t>(pointer);
  if (pointer == nullptr || bytes == 0 || (flags & ~kKnownFlags) != 0 || bytes > UINTPTR_MAX - start) {
    return kInvalidValue;
  }
  if (CurrentContext() == nullptr) return kInvalidContext;
  // I/O memory and read-only registration need device support the fake devices do not report.
  if ((flags & (kRegisterIoMemory | kRegisterReadOnly)) != 0) return kNotSupported;
  State& state = call.state();
  auto allocation = Overlapping(state.allocations, start, bytes);
  if (allocation != state.allocations.end()) {
    // Pinned host memory is page-locked already; device memory is no host memory at all.
    return allocation->second.kind == AllocationKind::kPinnedHost ? kHostMemoryAlreadyRegistered : kInvalidValue;
  }
  if (Overlapping(state.registrations, start, bytes) != state.registrations.end()) {
    return kHostMemoryAlreadyRegistered;
  }
  state.registrations.emplace(start, Registration{bytes, flags, CurrentDevice()});
  return kSuccess;
}

extern "C" rmmjs_CUresult cuMemHostUnregister(void* pointer) {
  Entry call(Symbol::cuMemHostUnregister);
  if (call.status() != kSuccess) return call.status();
  if (pointer == nullptr) return kInvalidValue;
  if (CurrentContext() == nullptr) return kInvalidContext;
  State& state = call.state();
  // Only the base address given to cuMemHostRegister_v2 unregisters its range.
  auto registration = state.registrations.find(reinterpret_cast<uintptr_t>(pointer));
  if (registration == state.registrations.end()) return kHostMemoryNotRegistered;
  state.registrations.erase(registration);
  return kSuccess;
}

extern "C" rmmjs_CUresult cuMemHostGetDevicePointer(rmmjs_CUdeviceptr* device_pointer, void* pointer,
                                                    unsigned int flags) {
  Entry call(Symbol::cuMemHostGetDevicePointer);
  if (call.status() != kSuccess) return call.status();
  if (device_pointer == nullptr || pointer == nullptr || flags != 0) return kInvalidValue;
  if (CurrentContext() == nullptr) return kInvalidContext;
  State& state = call.state();
  uintptr_t address = reinterpret_cast<uintptr_t>(pointer);
  // Mapped host memory only: allocated with CU_MEMHOSTALLOC_DEVICEMAP or registered with
  // CU_MEMHOSTREGISTER_DEVICEMAP (the driver's documented condition; stricter than a GPU with
  // unified addressing, which maps every pinned allocation).
  bool mapped = false;
  auto allocation = state.Containing(address);
  if (allocation != state.allocations.end()) {
    mapped = allocation->second.kind == AllocationKind::kPinnedHost &&
             (allocation->second.host_flags & RMMJS_CU_MEMHOSTALLOC_DEVICEMAP) != 0;
  } else {
    auto registration = Overlapping(state.registrations, address, 1);
    mapped = registration != state.registrations.end() &&
             (registration->second.flags & RMMJS_CU_MEMHOSTREGISTER_DEVICEMAP) != 0;
  }
  if (!mapped) return kInvalidValue;
  // Under unified addressing, with every device able to use host pointers, the two are equal.
  *device_pointer = address;
  return kSuccess;
}
