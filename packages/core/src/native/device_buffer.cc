#include "device_buffer.h"

#include <string>
#include <utility>

#include "driver.h"
#include "errors.h"
#include "logger.h"
#include "memory_ops.h"
#include "resource.h"
#include "staged_copy.h"

namespace rmmjs {

DeviceBuffer::DeviceBuffer(rmmjs_resource* mr, StreamObject* stream)
    : mr_(mr), stream_(stream), device_(mr->device) {
  Retain(mr_);
  stream_->Retain();
}

DeviceBuffer::~DeviceBuffer() {
  if (!freed_ && Free() != RMMJS_OK) {
    Log(RMMJS_LOG_ERROR, std::string("DeviceBuffer: deallocation during cleanup failed: ") + ErrorMessage());
  }
}

rmmjs_status DeviceBuffer::Create(rmmjs_resource* mr, StreamObject* stream, size_t size,
                                  const void* host_data, DeviceBuffer** out) {
  auto* buffer = new DeviceBuffer(mr, stream);
  ContextScope scope(stream->ContextDevice(buffer->device_));
  rmmjs_status status = scope.status();
  if (status == RMMJS_OK) status = Allocate(mr, size, stream->handle(), &buffer->data_);
  if (status == RMMJS_OK) {
    buffer->size_ = buffer->capacity_ = size;
    if (host_data != nullptr) status = buffer->CopyFromHost(host_data, size, stream);
  }
  if (status != RMMJS_OK) {
    buffer->Free();  // keeps the first error: a failed allocation left nothing to free
    delete buffer;
    return status;
  }
  *out = buffer;
  return RMMJS_OK;
}

rmmjs_status DeviceBuffer::Deallocate() {
  if (data_ == nullptr) return RMMJS_OK;
  ContextScope scope(stream_->ContextDevice(device_));
  RMMJS_TRY(scope.status());
  RMMJS_TRY(rmmjs::Deallocate(mr_, data_, capacity_, stream_->handle()));
  data_ = nullptr;
  size_ = capacity_ = 0;
  return RMMJS_OK;
}

rmmjs_status DeviceBuffer::Free() {
  if (freed_) return RMMJS_OK;
  freed_ = true;
  if (pending_async_ > 0) {
    free_deferred_ = true;
    return RMMJS_OK;
  }
  rmmjs_status status = Deallocate();
  if (status != RMMJS_OK) {
    // The memory could not be returned; forget it rather than free it twice later.
    data_ = nullptr;
    size_ = capacity_ = 0;
  }
  Release(std::exchange(mr_, nullptr));
  std::exchange(stream_, nullptr)->Release();
  return status;
}

rmmjs_status DeviceBuffer::EndAsync() {
  if (--pending_async_ > 0 || !free_deferred_) return RMMJS_OK;
  free_deferred_ = false;
  freed_ = false;
  return Free();
}

void DeviceBuffer::SetStream(StreamObject* stream) {
  if (stream == stream_) return;
  stream->Retain();
  std::exchange(stream_, stream)->Release();
}

// Moves the contents to new memory on `stream`, which becomes the buffer's stream once that
// worked (on failure the buffer is as it was).
rmmjs_status DeviceBuffer::Reallocate(size_t new_capacity, StreamObject* stream) {
  if (pending_async_ > 0) {
    return SetError(RMMJS_ERR_LOGIC, "DeviceBuffer has " + std::to_string(pending_async_) +
                                         " asynchronous copies in flight: await them first");
  }
  ContextScope scope(stream->ContextDevice(device_));
  RMMJS_TRY(scope.status());
  void* fresh = nullptr;
  RMMJS_TRY(Allocate(mr_, new_capacity, stream->handle(), &fresh));
  rmmjs_status status = MemcpyAsync(fresh, data_, size_, stream->handle());
  if (status != RMMJS_OK) {
    rmmjs::Deallocate(mr_, fresh, new_capacity, stream->handle());
    return status;
  }
  void* old = std::exchange(data_, fresh);
  size_t old_capacity = std::exchange(capacity_, new_capacity);
  SetStream(stream);
  // The buffer moved; failing to return the old memory is logged, not the resize's failure.
  if (rmmjs::Deallocate(mr_, old, old_capacity, stream_->handle()) != RMMJS_OK) {
    Log(RMMJS_LOG_ERROR, std::string("DeviceBuffer: returning the old memory after a resize failed: ") + ErrorMessage());
  }
  return RMMJS_OK;
}

rmmjs_status DeviceBuffer::Resize(size_t new_size, StreamObject* stream) {
  if (new_size > capacity_) {
    RMMJS_TRY(Reallocate(new_size, stream));
  } else {
    SetStream(stream);
  }
  size_ = new_size;
  return RMMJS_OK;
}

rmmjs_status DeviceBuffer::Reserve(size_t new_capacity, StreamObject* stream) {
  if (new_capacity > capacity_) return Reallocate(new_capacity, stream);
  SetStream(stream);
  return RMMJS_OK;
}

rmmjs_status DeviceBuffer::CopyFromHost(const void* src, size_t bytes, const StreamObject* stream) {
  if (bytes == 0) return RMMJS_OK;
  int device = stream->ContextDevice(device_);
  ContextScope scope(device);
  RMMJS_TRY(scope.status());
  if (ShouldStage(src, bytes)) {
    return StagedCopy(CopyDirection::kHostToDevice, data_, const_cast<void*>(src), bytes, stream->handle(), device);
  }
  RMMJS_TRY(MemcpyAsync(data_, src, bytes, stream->handle()));
  return StreamSynchronizeOnDevice(stream->handle(), device);
}

rmmjs_status DeviceBuffer::CopyToHost(void* dst, size_t bytes, const StreamObject* stream) {
  if (bytes == 0) return RMMJS_OK;
  int device = stream->ContextDevice(device_);
  ContextScope scope(device);
  RMMJS_TRY(scope.status());
  if (ShouldStage(dst, bytes)) return StagedCopy(CopyDirection::kDeviceToHost, data_, dst, bytes, stream->handle(), device);
  RMMJS_TRY(MemcpyAsync(dst, data_, bytes, stream->handle()));
  return StreamSynchronizeOnDevice(stream->handle(), device);
}

rmmjs_status DeviceBuffer::CopyFromDevice(const void* src, size_t bytes, const StreamObject* stream) {
  if (bytes == 0) return RMMJS_OK;
  ContextScope scope(stream->ContextDevice(device_));
  RMMJS_TRY(scope.status());
  return MemcpyAsync(data_, src, bytes, stream->handle());
}

rmmjs_status DeviceBuffer::Copy(DeviceBuffer** out) {
  DeviceBuffer* copy = nullptr;
  RMMJS_TRY(Create(mr_, stream_, size_, nullptr, &copy));
  rmmjs_status status = copy->CopyFromDevice(data_, size_, stream_);
  if (status != RMMJS_OK) {
    delete copy;
    return status;
  }
  *out = copy;
  return RMMJS_OK;
}

rmmjs_status DeviceBuffer::Prefetch(int device, const StreamObject* stream) {
  ContextScope scope(stream->ContextDevice(device_));
  RMMJS_TRY(scope.status());
  return rmmjs::Prefetch(data_, size_, device, stream->handle());
}

}  // namespace rmmjs
