// The memory RMMExternalMemoryManager takes straight from the driver, as Numba's
// HostOnlyCUDAMemoryManager does (RMM's manager leaves it to that class): page-locked host memory
// (cuMemHostAlloc), host memory the caller owns page-locked in place (cuMemHostRegister), and
// managed memory (cuMemAllocManaged). In host mode there is no page-locking: host memory stands
// in, and registration records the range only.
#pragma once

#include <cstddef>
#include <cstdint>

#include "rmmjs/abi.h"

namespace rmmjs {

class HostMemory {
 public:
  enum class Kind { kPinned, kRegistered, kManaged };

  // cuMemHostAlloc(bytes, flags) (CU_MEMHOSTALLOC_*) on device's context; mapped memory's device
  // address comes from cuMemHostGetDevicePointer.
  static rmmjs_status AllocatePinned(int32_t device, size_t bytes, unsigned flags, HostMemory* out);
  // cuMemHostRegister(ptr, bytes, flags) (CU_MEMHOSTREGISTER_*) on device's context.
  static rmmjs_status Register(int32_t device, void* ptr, size_t bytes, unsigned flags, HostMemory* out);
  // cuMemAllocManaged(bytes, CU_MEM_ATTACH_GLOBAL or CU_MEM_ATTACH_HOST) on device's context.
  static rmmjs_status AllocateManaged(int32_t device, size_t bytes, bool attach_global, HostMemory* out);

  // Waits for the device's work (which may still use the memory), then frees or unregisters it.
  // Once: later calls do nothing. On failure the memory stays as it was and Release may be retried.
  rmmjs_status Release();

  Kind kind() const { return kind_; }
  void* host_ptr() const { return host_ptr_; }
  // The address the device uses (managed: the allocation; pinned and registered: 0 unless mapped).
  uint64_t device_ptr() const { return device_ptr_; }
  size_t bytes() const { return bytes_; }
  bool released() const { return released_; }

 private:
  Kind kind_ = Kind::kPinned;
  int32_t device_ = 0;
  void* host_ptr_ = nullptr;
  uint64_t device_ptr_ = 0;
  size_t bytes_ = 0;
  bool released_ = true;  // nothing to release until memory is taken
};

}  // namespace rmmjs
