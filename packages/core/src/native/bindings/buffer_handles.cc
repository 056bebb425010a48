#include "bindings/buffer_handles.h"

#include <new>
#include <utility>

namespace rmmjs {
namespace bind {
namespace {

void Delete(BufferHandle* handle) {
  RemoveOwner(handle);
  if (handle->object != nullptr) napi_delete_reference(handle->env, handle->object);
  delete handle->buffer;  // frees the memory if nothing did (errors are logged)
  delete handle;
}

// The finalizer: the JavaScript object was collected (or its environment ended) without free(),
// or free() could not delete the finalizer's reference. Pins left now belong to asynchronous
// copies of an environment that is ending (a copy in flight keeps its buffer's object reachable),
// which nothing will resume.
void Collect(napi_env, void* data, void*) {
  auto* handle = static_cast<BufferHandle*>(data);
  handle->released = true;
  ReportCapacity(handle);
  if (handle->buffer != nullptr) handle->buffer->ClearPins();
  Delete(handle);
}

// Deletes the handle of a buffer that JavaScript let go of, unless the finalizer has to: Node-API
// may refuse to delete its reference (then the finalizer runs later and deletes the handle).
void Forget(BufferHandle* handle) {
  if (napi_delete_reference(handle->env, handle->object) != napi_ok) return;
  handle->object = nullptr;
  Delete(handle);
}

}  // namespace

void ReportCapacity(BufferHandle* handle) { Report(handle, handle->released ? 0 : handle->buffer->capacity()); }

napi_value AttachBuffer(napi_env env, napi_value js_object, DeviceBuffer* buffer) {
  auto* handle = new (std::nothrow) BufferHandle(buffer, env);
  if (handle == nullptr) {
    delete buffer;
    return nullptr;
  }
  try {
    AddOwner(handle);
  } catch (const std::bad_alloc&) {
    delete buffer;
    delete handle;
    return nullptr;
  }
  napi_value slot = nullptr;
  if (napi_create_uint32(env, handle->slot, &slot) != napi_ok ||
      napi_add_finalizer(env, js_object, handle, Collect, nullptr, &handle->object) != napi_ok) {
    Delete(handle);
    return nullptr;
  }
  ReportCapacity(handle);
  return slot;
}

BufferHandle* FindBuffer(napi_env env, napi_value slot) {
  uint32_t number = 0;
  if (napi_get_value_uint32(env, slot, &number) != napi_ok) return nullptr;
  TrackedOwner* owner = FindOwner(number);
  if (owner == nullptr || owner->kind != TrackedOwner::Kind::kBuffer || owner->env != env) return nullptr;
  return static_cast<BufferHandle*>(owner);
}

rmmjs_status ReleaseBuffer(BufferHandle* handle, bool* released) {
  DeviceBuffer* buffer = handle->buffer;
  handle->released = true;  // JavaScript that the free runs sees a freed buffer
  rmmjs_status status = buffer->Free();
  *released = buffer->freed();
  if (!*released) {
    handle->released = false;
    return status;
  }
  ReportCapacity(handle);
  if (buffer->pinned()) return status;  // freed when the pins go; the finalizer deletes the handle
  Forget(handle);
  return status;
}

DeviceBuffer* DetachBuffer(BufferHandle* handle) {
  handle->released = true;
  ReportCapacity(handle);  // the capacity now counts on the thread that claims the buffer
  DeviceBuffer* buffer = std::exchange(handle->buffer, nullptr);
  Forget(handle);
  return buffer;
}

size_t ReclaimBuffer(TrackedOwner* owner) {
  auto* handle = static_cast<BufferHandle*>(owner);
  handle->released = true;
  ReportCapacity(handle);
  size_t capacity = handle->buffer->capacity();
  return handle->buffer->Free() == RMMJS_OK ? capacity : 0;  // else the finalizer tries again (and logs)
}

}  // namespace bind
}  // namespace rmmjs
