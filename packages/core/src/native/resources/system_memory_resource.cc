// Host memory from the C heap, as RMM's system_memory_resource. On a GPU it needs pageable
// memory access (HMM or ATS); in host mode it is the default resource.
//
// All instances share one set of live allocations (they are interchangeable, as in RMM), so a
// pointer freed twice, or never allocated here, is an error instead of heap corruption.
#include <cstdint>
#include <cstdlib>
#include <new>
#include <string>

#include "resources/resource.h"
#include "rmmjs/pointer_table.hpp"
#include "rmmjs/resource.hpp"
#include "runtime/driver.h"
#include "runtime/errors.h"

namespace rmmjs {
namespace {

// malloc plus manual alignment (as RMM's aligned_host_allocate): cheaper than aligned_alloc,
// whose splitting fragments the heap. The original pointer sits just below the aligned one.
void* AlignedAllocate(size_t bytes) {
  constexpr size_t kExtra = RMMJS_ALLOCATION_ALIGNMENT + sizeof(void*);
  if (bytes > SIZE_MAX - kExtra) return nullptr;
  void* raw = std::malloc(bytes + kExtra);
  if (raw == nullptr) return nullptr;
  uintptr_t aligned = (reinterpret_cast<uintptr_t>(raw) + kExtra) & ~(uintptr_t{RMMJS_ALLOCATION_ALIGNMENT} - 1);
  reinterpret_cast<void**>(aligned)[-1] = raw;
  return reinterpret_cast<void*>(aligned);
}

void AlignedFree(void* ptr) { std::free(static_cast<void**>(ptr)[-1]); }

// The live allocations and their sizes.
ShardedPointerTable<size_t>& Live() {
  static auto* live = new ShardedPointerTable<size_t>();  // never destroyed: frees may run during exit
  return *live;
}

class SystemMemoryResource {
 public:
  static constexpr const char* kTypeName = "SystemMemoryResource";
  explicit SystemMemoryResource(int device) : device_(device) {}

  rmmjs_status Allocate(size_t bytes, rmmjs_stream, void** out) {
    void* ptr = AlignedAllocate(bytes);
    if (ptr == nullptr) {
      return SetError(RMMJS_ERR_OUT_OF_MEMORY, "Failed to allocate " + std::to_string(bytes) + " bytes of host memory");
    }
    try {
      Live().Insert(ptr, bytes);
    } catch (const std::bad_alloc&) {
      AlignedFree(ptr);
      return SetError(RMMJS_ERR_OUT_OF_MEMORY, "SystemMemoryResource: out of host memory");
    }
    *out = ptr;
    return RMMJS_OK;
  }

  rmmjs_status Deallocate(void* ptr, size_t bytes, rmmjs_stream stream) {
    // free() is immediate, so in-flight GPU work on the stream must finish first (as RMM).
    if (const rmmjs_driver_api* api = DriverApi()) {
      ContextScope scope(device_);
      RMMJS_TRY(scope.status());
      int result = api->cuStreamSynchronize(reinterpret_cast<rmmjs_CUstream>(stream));
      if (result != RMMJS_CUDA_SUCCESS) return CudaFailure(result, "cuStreamSynchronize");
    }
    size_t allocated = 0;
    if (!Live().Take(ptr, &allocated)) {
      return SetError(RMMJS_ERR_LOGIC, "SystemMemoryResource: cannot deallocate " + std::to_string(bytes) +
                                           " bytes at a pointer it did " + "not allocate or already deallocated");
    }
    AlignedFree(ptr);
    return RMMJS_OK;
  }

  bool IsEqual(const SystemMemoryResource&) const { return true; }

 private:
  int device_;
};

}  // namespace

rmmjs_status RequireSystemMemorySupport(int device) {
  RMMJS_TRY(ValidateDevice(device));
  if (const rmmjs_driver_api* api = DriverApi()) {
    int pageable = 0;
    int result = api->cuDeviceGetAttribute(&pageable, RMMJS_CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS, device);
    if (result != RMMJS_CUDA_SUCCESS) return CudaFailure(result, "cuDeviceGetAttribute");
    if (pageable != 1) {
      return SetError(RMMJS_ERR_LOGIC,
                      "System memory allocator is not supported with this hardware/software "
                      "version. (The GPU needs pageable memory access: HMM with the open kernel "
                      "modules, or ATS.)");
    }
  }
  return RMMJS_OK;
}

rmmjs_status CreateSystemMemoryResource(int device, rmmjs_resource** out) {
  RMMJS_TRY(RequireSystemMemorySupport(device));
  return NewResource<SystemMemoryResource>(device, RMMJS_RESOURCE_DEVICE_ACCESSIBLE | RMMJS_RESOURCE_HOST_ACCESSIBLE,
                                           out, device);
}

}  // namespace rmmjs
