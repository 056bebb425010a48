#include "buffer_handles.h"

#include <string>

#include "errors.h"
#include "logger.h"

namespace rmmjs {
namespace bind {

BufferHandles::BufferHandles(napi_env env) : env_(env) {
  napi_add_env_cleanup_hook(env, Cleanup, this);
}

void BufferHandles::ReportCapacity(size_t before, size_t after) {
  if (before == after) return;
  int64_t total = 0;
  napi_adjust_external_memory(env_, static_cast<int64_t>(after) - static_cast<int64_t>(before), &total);
}

BufferHandle* BufferHandles::Add(DeviceBuffer* buffer) {
  auto* handle = new BufferHandle{BufferHandle::kMagic, buffer, this};
  handle->next = head_;
  if (head_ != nullptr) head_->prev = handle;
  head_ = handle;
  ReportCapacity(0, buffer->capacity());
  return handle;
}

void BufferHandles::Finalize(BufferHandle* handle) {
  if (handle->buffer->pending_async() > 0) {
    handle->finalize_deferred = true;
    return;
  }
  Destroy(handle);
}

void BufferHandles::EndAsync(BufferHandle* handle) {
  if (handle->buffer->EndAsync() != RMMJS_OK) {
    Log(RMMJS_LOG_ERROR, std::string("DeviceBuffer: deferred free failed: ") + ErrorMessage());
  }
  if (handle->finalize_deferred && handle->buffer->pending_async() == 0) Destroy(handle);
}

void BufferHandles::Destroy(BufferHandle* handle) {
  DeviceBuffer* buffer = handle->buffer;
  if (!buffer->freed()) ReportCapacity(buffer->capacity(), 0);
  delete buffer;  // frees the memory if free() never ran (errors are logged)
  if (handle->prev != nullptr) handle->prev->next = handle->next;
  else head_ = handle->next;
  if (handle->next != nullptr) handle->next->prev = handle->prev;
  handle->magic = 0;
  delete handle;
}

void BufferHandles::Cleanup(void* self) {
  auto* handles = static_cast<BufferHandles*>(self);
  for (BufferHandle* handle = handles->head_; handle != nullptr;) {
    BufferHandle* next = handle->next;
    // A copy still running on the thread pool keeps its buffer (leaked rather than freed under it).
    if (handle->buffer->pending_async() == 0) handles->Destroy(handle);
    handle = next;
  }
  delete handles;
}

}  // namespace bind
}  // namespace rmmjs
