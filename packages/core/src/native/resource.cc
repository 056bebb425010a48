#include "resource.h"

#include <atomic>

#include "driver.h"
#include "errors.h"

namespace rmmjs {

void ResourceInit(rmmjs_resource* mr, const rmmjs_resource_ops* ops, int32_t device,
                  uint32_t flags) {
  mr->ops = ops;
  mr->refcount = 1;
  mr->device = device;
  mr->flags = flags;
  mr->reserved[0] = mr->reserved[1] = nullptr;
}

void Retain(rmmjs_resource* mr) { __atomic_fetch_add(&mr->refcount, 1, __ATOMIC_RELAXED); }

void Release(rmmjs_resource* mr) {
  if (__atomic_fetch_sub(&mr->refcount, 1, __ATOMIC_ACQ_REL) == 1) mr->ops->destroy(mr);
}

rmmjs_status Allocate(rmmjs_resource* mr, size_t bytes, rmmjs_stream stream, void** out) {
  *out = nullptr;
  if (bytes == 0) return RMMJS_OK;
  return mr->ops->allocate(mr, bytes, stream, out);
}

rmmjs_status Deallocate(rmmjs_resource* mr, void* ptr, size_t bytes, rmmjs_stream stream) {
  if (ptr == nullptr) return RMMJS_OK;
  return mr->ops->deallocate(mr, ptr, bytes, stream);
}

int IsEqual(const rmmjs_resource* a, const rmmjs_resource* b) {
  if (a == b) return 1;
  if (a == nullptr || b == nullptr) return 0;
  return a->ops->is_equal != nullptr ? a->ops->is_equal(a, b) : 0;
}

rmmjs_status CreateDefaultResource(int device, rmmjs_resource** out) {
  return CudaAvailable() ? CreateCudaMemoryResource(device, out)
                         : CreateSystemMemoryResource(device, out);
}

}  // namespace rmmjs
