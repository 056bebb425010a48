#include "buffer_handles.h"

#include <utility>
#include <vector>

namespace rmmjs {
namespace bind {
namespace {

// A Node environment runs on one thread, so its buffers are listed per thread.
thread_local BufferHandle* tl_buffers = nullptr;

void Link(BufferHandle* handle) {
  handle->next = tl_buffers;
  if (tl_buffers != nullptr) tl_buffers->prev = handle;
  tl_buffers = handle;
}

void Unlink(BufferHandle* handle) {
  if (handle->prev != nullptr) {
    handle->prev->next = handle->next;
  } else if (tl_buffers == handle) {
    tl_buffers = handle->next;
  } else {
    return;  // not listed
  }
  if (handle->next != nullptr) handle->next->prev = handle->prev;
  handle->prev = handle->next = nullptr;
}

void Delete(BufferHandle* handle) {
  if (handle->wrap != nullptr) napi_delete_reference(handle->env, handle->wrap);
  delete handle->buffer;  // frees the memory if nothing did (errors are logged)
  handle->magic = 0;
  delete handle;
}

// The wrap's finalizer: the JavaScript object was collected (or its environment ended) without
// free(), or free() could not take the wrap off. Pins left now belong to asynchronous copies of
// an environment that is ending (a copy in flight keeps its buffer's object reachable), which
// nothing will resume.
void Collect(napi_env, void* data, void*) {
  auto* handle = static_cast<BufferHandle*>(data);
  Unlink(handle);
  handle->released = true;
  ReportCapacity(handle);
  if (handle->buffer != nullptr) handle->buffer->ClearPins();
  Delete(handle);
}

}  // namespace

void ReportCapacity(BufferHandle* handle) {
  size_t now = handle->released ? 0 : handle->buffer->capacity();
  if (now == handle->reported) return;
  int64_t total = 0;
  napi_adjust_external_memory(handle->env, static_cast<int64_t>(now) - static_cast<int64_t>(handle->reported), &total);
  handle->reported = now;
}

napi_value AttachBuffer(napi_env env, napi_value js_object, DeviceBuffer* buffer) {
  auto* handle = new BufferHandle{BufferHandle::kMagic, buffer, env};
  napi_value external = nullptr;
  if (napi_create_external(env, handle, nullptr, nullptr, &external) != napi_ok ||
      napi_wrap(env, js_object, handle, Collect, nullptr, &handle->wrap) != napi_ok) {
    Delete(handle);
    return nullptr;
  }
  Link(handle);
  ReportCapacity(handle);
  return external;
}

rmmjs_status ReleaseBuffer(napi_env env, napi_value js_object, BufferHandle* handle, bool* released) {
  DeviceBuffer* buffer = handle->buffer;
  handle->released = true;  // JavaScript that the free runs sees a freed buffer
  rmmjs_status status = buffer->Free();
  *released = buffer->freed();
  if (!*released) {
    handle->released = false;
    return status;
  }
  Unlink(handle);
  ReportCapacity(handle);
  if (buffer->pinned()) return status;  // freed when the pins go; the finalizer deletes the handle
  // Node-API refuses while the environment shuts down (worker.terminate() during free()): then
  // the wrap stays and its finalizer deletes the handle.
  void* unwrapped = nullptr;
  if (napi_remove_wrap(env, js_object, &unwrapped) == napi_ok) Delete(handle);
  return status;
}

DeviceBuffer* DetachBuffer(napi_env env, napi_value js_object, BufferHandle* handle) {
  Unlink(handle);
  handle->released = true;
  ReportCapacity(handle);  // the capacity now counts on the thread that claims the buffer
  DeviceBuffer* buffer = std::exchange(handle->buffer, nullptr);
  // As in ReleaseBuffer: while the environment shuts down the wrap stays, and its finalizer
  // deletes the handle (without a buffer).
  void* unwrapped = nullptr;
  if (napi_remove_wrap(env, js_object, &unwrapped) == napi_ok) Delete(handle);
  return buffer;
}

size_t Reclaim(napi_env env) {
  // First take every collected buffer off the list: freeing may run JavaScript that frees or
  // creates other buffers. (Their finalizers run only when the event loop turns, not meanwhile.)
  std::vector<BufferHandle*> collected;
  napi_handle_scope scope = nullptr;
  if (napi_open_handle_scope(env, &scope) != napi_ok) return 0;
  for (BufferHandle* handle = tl_buffers; handle != nullptr; handle = handle->next) {
    napi_value object = nullptr;
    if (handle->env == env && napi_get_reference_value(env, handle->wrap, &object) == napi_ok && object == nullptr) {
      collected.push_back(handle);
    }
  }
  napi_close_handle_scope(env, scope);
  size_t bytes = 0;
  for (BufferHandle* handle : collected) {
    Unlink(handle);
    handle->released = true;
    ReportCapacity(handle);
    size_t capacity = handle->buffer->capacity();
    if (handle->buffer->Free() == RMMJS_OK) bytes += capacity;  // else the finalizer tries again (and logs)
  }
  return bytes;
}

}  // namespace bind
}  // namespace rmmjs
