// The generic resource operations behind the C ABI (refcounting, dispatch) and the
// constructors of core's base resources.
#pragma once

#include "rmmjs/abi.h"

namespace rmmjs {

// resource_init_checked and (ABI 1.0) resource_init: see rmmjs/abi.h.
rmmjs_status ResourceInitChecked(rmmjs_resource* mr, const rmmjs_resource_ops* ops, int32_t device, uint32_t flags);
void ResourceInit(rmmjs_resource* mr, const rmmjs_resource_ops* ops, int32_t device, uint32_t flags);
void Retain(rmmjs_resource* mr);
void Release(rmmjs_resource* mr);
rmmjs_status Allocate(rmmjs_resource* mr, size_t bytes, rmmjs_stream stream, void** out);
rmmjs_status Deallocate(rmmjs_resource* mr, void* ptr, size_t bytes, rmmjs_stream stream);
int IsEqual(const rmmjs_resource* a, const rmmjs_resource* b);

// Base resources (each in its own file). Each returns a new reference in *out.
rmmjs_status CreateCudaMemoryResource(int device, rmmjs_resource** out);
rmmjs_status CreateManagedMemoryResource(int device, rmmjs_resource** out);
rmmjs_status CreateSystemMemoryResource(int device, rmmjs_resource** out);
rmmjs_status CreatePinnedHostMemoryResource(int device, rmmjs_resource** out);
rmmjs_status CreateSamHeadroomMemoryResource(int device, size_t headroom, rmmjs_resource** out);
// initial_pool_size / release_threshold: nullptr for "not given".
rmmjs_status CreateCudaAsyncMemoryResource(int device, const size_t* initial_pool_size, const size_t* release_threshold,
                                           bool enable_ipc, rmmjs_resource** out);
// A view's device is the one whose default pool it is, else `current`.
rmmjs_status CreateCudaAsyncViewMemoryResource(int current, uintptr_t pool_handle, rmmjs_resource** out);
// The CUmemoryPool of an async or async-view resource, or 0.
// The CUmemoryPool of a CudaAsyncMemoryResource (view: of a CudaAsyncViewMemoryResource); false
// when `mr` is not of that class.
bool AsyncPoolHandle(const rmmjs_resource* mr, bool view, uintptr_t* pool);
// Requires pageable memory access on device (SystemMemoryResource, SamHeadroomMemoryResource).
rmmjs_status RequireSystemMemorySupport(int device);

// The resource a device gets when none was set: Cuda with a GPU, System in host mode.
rmmjs_status CreateDefaultResource(int device, rmmjs_resource** out);

}  // namespace rmmjs
