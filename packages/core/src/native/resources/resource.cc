#include "resources/resource.h"

#include <atomic>
#include <string>

#include "resources/shared_resources.h"
#include "rmmjs/loaded_libraries.hpp"
#include "runtime/driver.h"
#include "runtime/errors.h"
#include "runtime/logger.h"

namespace rmmjs {
namespace {

// Why core cannot use ops ("" when it can): it must cover the 1.0 layout and have the members
// core calls unconditionally.
std::string OpsProblem(const rmmjs_resource_ops* ops) {
  if (ops == nullptr) return "rmmjs_resource_ops is NULL";
  if (ops->size < RMMJS_RESOURCE_OPS_SIZE_1_0) {
    return "rmmjs_resource_ops.size is " + std::to_string(ops->size) + ", smaller than the " +
           std::to_string(RMMJS_RESOURCE_OPS_SIZE_1_0) +
           " bytes of ABI 1.0's table: set it to sizeof(rmmjs_resource_ops)";
  }
  if (ops->allocate == nullptr || ops->deallocate == nullptr || ops->destroy == nullptr) {
    return std::string("rmmjs_resource_ops of ") + (ops->type_name ? ops->type_name : "a resource") +
           ": allocate, deallocate and destroy must not be NULL";
  }
  return "";
}

void InitHeader(rmmjs_resource* mr, const rmmjs_resource_ops* ops, int32_t device, uint32_t flags) {
  KeepLibraryLoaded(ops);  // the library that made the resource: its operations run there
  mr->ops = ops;
  mr->refcount = 1;
  mr->device = device;
  mr->flags = flags;
  mr->reserved[0] = mr->reserved[1] = nullptr;
}

// What resource_init, which cannot report, makes of a refused table: a resource whose operations
// fail with the reason (kept in reserved[0]). Its implementer's destroy is not trusted, so its
// last release frees only the reason.
const std::string& RefusalOf(const rmmjs_resource* mr) { return *static_cast<std::string*>(mr->reserved[0]); }
const rmmjs_resource_ops kRefusedOps = {
    sizeof(rmmjs_resource_ops),
    "DeviceMemoryResource",
    [](rmmjs_resource* self, size_t, rmmjs_stream, void**) { return SetError(RMMJS_ERR_LOGIC, RefusalOf(self)); },
    [](rmmjs_resource* self, void*, size_t, rmmjs_stream) { return SetError(RMMJS_ERR_LOGIC, RefusalOf(self)); },
    nullptr,
    [](rmmjs_resource* self) { delete static_cast<std::string*>(self->reserved[0]); },
    nullptr,
};

}  // namespace

rmmjs_status ResourceInitChecked(rmmjs_resource* mr, const rmmjs_resource_ops* ops, int32_t device, uint32_t flags) {
  std::string problem = OpsProblem(ops);
  if (!problem.empty()) return SetError(RMMJS_ERR_INVALID_ARGUMENT, "resource_init_checked: " + problem);
  InitHeader(mr, ops, device, flags);
  return RMMJS_OK;
}

void ResourceInit(rmmjs_resource* mr, const rmmjs_resource_ops* ops, int32_t device, uint32_t flags) {
  std::string problem = OpsProblem(ops);
  if (problem.empty()) return InitHeader(mr, ops, device, flags);
  std::string reason = "resource_init refused this resource: " + problem;
  Log(RMMJS_LOG_ERROR, reason);
  InitHeader(mr, &kRefusedOps, device, flags);
  mr->reserved[0] = new std::string(std::move(reason));
}

void Retain(rmmjs_resource* mr) { __atomic_fetch_add(&mr->refcount, 1, __ATOMIC_RELAXED); }

void Release(rmmjs_resource* mr) {
  if (__atomic_fetch_sub(&mr->refcount, 1, __ATOMIC_ACQ_REL) != 1) return;
  ForgetShared(mr);  // before destroy: another thread's RetainShared may be reading the refcount
  mr->ops->destroy(mr);
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
  return CudaAvailable() ? CreateCudaMemoryResource(device, out) : CreateSystemMemoryResource(device, out);
}

}  // namespace rmmjs
