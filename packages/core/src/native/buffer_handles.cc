#include "buffer_handles.h"

#include <string>

#include "errors.h"
#include "logger.h"

namespace rmmjs {
namespace bind {
namespace {

void Delete(BufferHandle* handle) {
  delete handle->buffer;  // frees the memory if free() never ran (errors are logged)
  handle->magic = 0;
  delete handle;
}

// The wrap's finalizer: the JS object was collected (or its environment ended) unfreed.
void Collect(napi_env env, void* data, void*) {
  auto* handle = static_cast<BufferHandle*>(data);
  if (!handle->buffer->freed()) ReportCapacity(env, handle->buffer->capacity(), 0);
  Delete(handle);
}

}  // namespace

void ReportCapacity(napi_env env, size_t before, size_t after) {
  if (before == after) return;
  int64_t total = 0;
  napi_adjust_external_memory(env, static_cast<int64_t>(after) - static_cast<int64_t>(before), &total);
}

napi_value AttachBuffer(napi_env env, napi_value js_object, DeviceBuffer* buffer) {
  auto* handle = new BufferHandle{BufferHandle::kMagic, buffer, env};
  napi_value external = nullptr;
  if (napi_create_external(env, handle, nullptr, nullptr, &external) != napi_ok ||
      napi_wrap(env, js_object, handle, Collect, nullptr, nullptr) != napi_ok) {
    Delete(handle);
    return nullptr;
  }
  ReportCapacity(env, 0, buffer->capacity());
  return external;
}

rmmjs_status ReleaseBuffer(napi_env env, napi_value js_object, BufferHandle* handle) {
  DeviceBuffer* buffer = handle->buffer;
  ReportCapacity(env, buffer->capacity(), 0);
  rmmjs_status status = buffer->Free();  // deferred while asynchronous copies run
  std::string message = status == RMMJS_OK ? "" : ErrorMessage();
  void* unwrapped = nullptr;
  napi_remove_wrap(env, js_object, &unwrapped);
  handle->released = true;
  if (buffer->pending_async() == 0) Delete(handle);
  if (status != RMMJS_OK) SetError(status, ErrorCudaCode(), message);
  return status;
}

void EndAsync(BufferHandle* handle) {
  if (handle->buffer->EndAsync() != RMMJS_OK) {
    Log(RMMJS_LOG_ERROR, std::string("DeviceBuffer: deferred free failed: ") + ErrorMessage());
  }
  if (handle->released && handle->buffer->pending_async() == 0) Delete(handle);
}

}  // namespace bind
}  // namespace rmmjs
