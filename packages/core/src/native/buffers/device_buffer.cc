#include "buffers/device_buffer.h"

#include <string>
#include <utility>

#include "buffers/shared_memory.h"
#include "copies/memory_ops.h"
#include "copies/staged_copy.h"
#include "resources/resource.h"
#include "runtime/driver.h"
#include "runtime/errors.h"
#include "runtime/logger.h"

namespace rmmjs {
namespace {

// Runs cleanup (which may fail and set its own error) and puts the error of `status` back.
template <class Cleanup>
rmmjs_status KeepingError(rmmjs_status status, Cleanup cleanup) {
  std::string message = ErrorMessage();
  int cuda_code = ErrorCudaCode();
  cleanup();
  return SetError(status, cuda_code, std::move(message));
}

void LogFailure(const char* what) {
  Log(RMMJS_LOG_ERROR, std::string("DeviceBuffer: ") + what + ": " + ErrorMessage());
}

rmmjs_status CheckRange(size_t offset, size_t bytes, size_t capacity) {
  if (offset <= capacity && bytes <= capacity - offset) return RMMJS_OK;
  return SetError(RMMJS_ERR_OUT_OF_RANGE, "DeviceBuffer: a copy of " + std::to_string(bytes) + " bytes at offset " +
                                              std::to_string(offset) + " does not fit in " + std::to_string(capacity) +
                                              " bytes");
}

}  // namespace

// Pins the buffer for an operation that may run JavaScript; the last pin to go completes a free()
// that JavaScript asked for meanwhile (its errors are logged: the operation reports its own).
class DeviceBuffer::Busy {
 public:
  explicit Busy(DeviceBuffer* buffer) : buffer_(buffer) { ++buffer_->busy_; }
  ~Busy() {
    --buffer_->busy_;
    buffer_->Unpinned();
  }
  Busy(const Busy&) = delete;
  Busy& operator=(const Busy&) = delete;

 private:
  DeviceBuffer* buffer_;
};

DeviceBuffer::DeviceBuffer(ResourceRef mr, StreamObject* stream)
    : mr_(mr.release()), stream_(stream), device_(mr_->device) {
  stream_->Retain();
}

DeviceBuffer::~DeviceBuffer() {
  if (mr_ != nullptr) {
    if (CheckGuards() != RMMJS_OK) LogFailure("giving back guarded memory of a buffer that was never freed");
    if (ReturnMemory() != RMMJS_OK) LogFailure("deallocation during cleanup failed");
    if (mr_ != nullptr) {  // the memory could not be returned: it is lost, the references are not
      Release(std::exchange(mr_, nullptr));
      std::exchange(stream_, nullptr)->Release();
    }
  }
  DestroyGuards();
}

rmmjs_status DeviceBuffer::Create(ResourceRef mr, StreamObject* stream, size_t size, DeviceBuffer** out) {
  auto* buffer = new DeviceBuffer(std::move(mr), stream);
  // The resource is called with the buffer's device current (a resource in JavaScript may ask
  // which device is current), whatever the stream's device; copies run in the stream's context.
  ContextScope scope(buffer->device_);
  rmmjs_status status = scope.status();
  if (status == RMMJS_OK) status = Allocate(buffer->mr_, size, stream->handle(), &buffer->data_);
  if (status != RMMJS_OK) {
    delete buffer;  // holds no memory: only releases the references
    return status;
  }
  buffer->size_ = buffer->capacity_ = size;
  *out = buffer;
  return RMMJS_OK;
}

DeviceBuffer* DeviceBuffer::Adopt(rmmjs_resource* mr, StreamObject* stream, rmmjs_memory* memory) {
  auto* buffer = new DeviceBuffer(ResourceRef::Retain(mr), stream);
  buffer->owner_ = memory;
  // An empty buffer points nowhere (as RMM's), even over lent memory that has an address (a share
  // of an empty buffer): its owner is still released by free().
  buffer->data_ = memory->bytes > 0 ? memory->ptr : nullptr;
  buffer->size_ = buffer->capacity_ = memory->bytes;
  return buffer;
}

rmmjs_status DeviceBuffer::GiveBack(void* data, size_t capacity, rmmjs_memory* owner) {
  if (owner != nullptr) {
    owner->release(owner);
    return RMMJS_OK;
  }
  if (data == nullptr) return RMMJS_OK;
  ContextScope scope(device_);
  RMMJS_TRY(scope.status());
  return rmmjs::Deallocate(mr_, data, capacity, stream_->handle());
}

rmmjs_status DeviceBuffer::Deallocate() {
  RMMJS_TRY(GiveBack(data_, capacity_, owner_));
  owner_ = nullptr;
  data_ = nullptr;
  size_ = capacity_ = 0;
  return RMMJS_OK;
}

rmmjs_status DeviceBuffer::CheckGuards() const {
  for (rmmjs_buffer_guard* guard : guards_) RMMJS_TRY(guard->check(guard, data_, capacity_));
  return RMMJS_OK;
}

void DeviceBuffer::DestroyGuards() {
  for (rmmjs_buffer_guard* guard : guards_) guard->destroy(guard);
  guards_.clear();
}

rmmjs_status DeviceBuffer::Hold(rmmjs_memory** out) {
  if (freed_) return SetError(RMMJS_ERR_DISPOSED, "DeviceBuffer was freed and cannot be used");
  SharedMemory* shared = SharedMemory::Of(owner_);
  if (shared == nullptr) {
    // From now on the buffer owns a share too: the memory goes when the last share does.
    shared = owner_ != nullptr ? SharedMemory::Wrapping(owner_)
                               : SharedMemory::Owning(mr_, stream_, data_, capacity_, device_);
    owner_ = shared->NewShare(data_, capacity_, device_);
  }
  *out = shared->NewShare(data_, size_, device_);
  return RMMJS_OK;
}

// Returns the memory, then lets go of the resource and the stream. On failure the memory stays
// owned, unless the resource says it is not its own (RMMJS_ERR_LOGIC).
rmmjs_status DeviceBuffer::ReturnMemory() {
  rmmjs_status status = Deallocate();
  if (status == RMMJS_ERR_LOGIC) {
    data_ = nullptr;
    size_ = capacity_ = 0;
  }
  if (data_ != nullptr) return status;
  DestroyGuards();
  Release(std::exchange(mr_, nullptr));
  std::exchange(stream_, nullptr)->Release();
  return status;
}

rmmjs_status DeviceBuffer::Free() {
  if (freed_) return RMMJS_OK;
  RMMJS_TRY(CheckGuards());  // refused: the buffer keeps its memory
  freed_ = true;
  if (pinned()) return RMMJS_OK;  // the last pin to go frees
  rmmjs_status status = ReturnMemory();
  if (mr_ != nullptr) freed_ = false;  // it still owns its memory: free() may be tried again
  return status;
}

rmmjs_status DeviceBuffer::Unpinned() {
  if (pinned() || !freed_ || mr_ == nullptr) return RMMJS_OK;
  rmmjs_status status = ReturnMemory();
  if (status != RMMJS_OK) LogFailure("deferred free failed");
  return status;
}

rmmjs_status DeviceBuffer::EndAsync() {
  --pending_async_;
  return Unpinned();
}

rmmjs_status DeviceBuffer::FreedWhile(const char* operation) const {
  return SetError(RMMJS_ERR_DISPOSED, std::string("DeviceBuffer was freed while it was being ") + operation +
                                          " (by JavaScript that its resource ran)");
}

void DeviceBuffer::SetStream(StreamObject* stream) {
  if (stream == stream_) return;
  stream->Retain();
  std::exchange(stream_, stream)->Release();
}

// Moves the contents to new memory on `stream`, which becomes the buffer's stream once that
// worked (on failure the buffer is as it was).
rmmjs_status DeviceBuffer::Reallocate(size_t new_capacity, StreamObject* stream) {
  RMMJS_TRY(CheckGuards());
  if (pending_async_ > 0) {
    return SetError(RMMJS_ERR_LOGIC, "DeviceBuffer has " + std::to_string(pending_async_) +
                                         " asynchronous copies in flight: await them first");
  }
  if (busy_ > 0) {
    return SetError(RMMJS_ERR_LOGIC,
                    "DeviceBuffer cannot move now: it is being moved or copied by an operation whose resource "
                    "runs JavaScript");
  }
  stream->Retain();  // that JavaScript may dispose the caller's Stream
  rmmjs_status status;
  {
    Busy busy(this);
    status = MoveTo(new_capacity, stream);
  }  // a free() from that JavaScript has happened here
  stream->Release();
  return freed_ ? FreedWhile("resized") : status;
}

rmmjs_status DeviceBuffer::MoveTo(size_t new_capacity, StreamObject* stream) {
  ContextScope scope(device_);
  RMMJS_TRY(scope.status());
  void* fresh = nullptr;
  RMMJS_TRY(Allocate(mr_, new_capacity, stream->handle(), &fresh));
  rmmjs_status status = RMMJS_ERR_DISPOSED;
  if (!freed_) {
    ContextScope copy_scope(stream->ContextDevice(device_));
    status = copy_scope.status();
    if (status == RMMJS_OK) status = MemcpyAsync(fresh, data_, size_, stream->handle());
  }
  if (status != RMMJS_OK) {
    return KeepingError(status, [&] {
      if (rmmjs::Deallocate(mr_, fresh, new_capacity, stream->handle()) != RMMJS_OK) {
        LogFailure("returning new memory after a failed resize failed");
      }
    });
  }
  void* old = std::exchange(data_, fresh);
  size_t old_capacity = std::exchange(capacity_, new_capacity);
  rmmjs_memory* old_owner = std::exchange(owner_, nullptr);  // the new memory is mr_'s
  StreamObject* old_stream = stream_;
  old_stream->Retain();  // for an undo: the buffer's reference goes with SetStream
  SetStream(stream);
  // The old memory goes back on the new stream, after the copy (memory someone else owns goes back
  // to its owner). When the resource cannot take it back (a transient failure), the move is undone:
  // the buffer keeps its old memory, owner and stream, the new memory goes back, and the resize
  // fails, as free() does, so that nothing is lost and it may be tried again. Memory the resource
  // says is not its own (RMMJS_ERR_LOGIC) has nothing to return: the move stands.
  status = GiveBack(old, old_capacity, old_owner);
  if (status != RMMJS_OK && status != RMMJS_ERR_LOGIC) {
    status = KeepingError(status, [&] {
      data_ = old;
      capacity_ = old_capacity;
      owner_ = old_owner;
      SetStream(old_stream);
      if (rmmjs::Deallocate(mr_, fresh, new_capacity, stream->handle()) != RMMJS_OK) {
        LogFailure("returning new memory after a failed resize failed");
      }
    });
  } else {
    if (status == RMMJS_ERR_LOGIC) {
      LogFailure("the old memory of a resized buffer was not its resource's");
      status = RMMJS_OK;
    }
    DestroyGuards();  // they guarded the old memory
  }
  old_stream->Release();
  return status;
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

rmmjs_status DeviceBuffer::CopyFromHost(const void* src, size_t bytes, const StreamObject* stream, size_t offset) {
  if (bytes == 0) return RMMJS_OK;
  RMMJS_TRY(CheckRange(offset, bytes, capacity_));
  int device = stream->ContextDevice(device_);
  ContextScope scope(device);
  RMMJS_TRY(scope.status());
  char* dst = static_cast<char*>(data_) + offset;
  if (ShouldStage(src, bytes)) {
    return StagedCopy(CopyDirection::kHostToDevice, dst, const_cast<void*>(src), bytes, stream->handle(), device);
  }
  RMMJS_TRY(MemcpyAsync(dst, src, bytes, stream->handle()));
  return StreamSynchronizeOnDevice(stream->handle(), device);
}

rmmjs_status DeviceBuffer::CopyToHost(void* dst, size_t bytes, const StreamObject* stream, size_t offset) {
  if (bytes == 0) return RMMJS_OK;
  RMMJS_TRY(CheckRange(offset, bytes, capacity_));
  int device = stream->ContextDevice(device_);
  ContextScope scope(device);
  RMMJS_TRY(scope.status());
  char* src = static_cast<char*>(data_) + offset;
  if (ShouldStage(dst, bytes))
    return StagedCopy(CopyDirection::kDeviceToHost, src, dst, bytes, stream->handle(), device);
  RMMJS_TRY(MemcpyAsync(dst, src, bytes, stream->handle()));
  return StreamSynchronizeOnDevice(stream->handle(), device);
}

rmmjs_status DeviceBuffer::CopyFromDevice(const void* src, size_t bytes, const StreamObject* stream) {
  if (bytes == 0) return RMMJS_OK;
  RMMJS_TRY(CheckRange(0, bytes, capacity_));
  ContextScope scope(stream->ContextDevice(device_));
  RMMJS_TRY(scope.status());
  return MemcpyAsync(data_, src, bytes, stream->handle());
}

rmmjs_status DeviceBuffer::Copy(DeviceBuffer** out) {
  DeviceBuffer* copy = nullptr;
  rmmjs_status status;
  {
    Busy busy(this);  // the copy's allocation may run JavaScript that frees or moves this buffer
    size_t bytes = size_;
    status = Create(ResourceRef::Retain(mr_), stream_, bytes, &copy);
    if (status == RMMJS_OK && !freed_) status = copy->CopyFromDevice(data_, bytes, stream_);
  }  // a free() from that JavaScript has happened here
  if (freed_) status = FreedWhile("copied");
  if (status != RMMJS_OK) {
    if (copy != nullptr) KeepingError(status, [&] { delete copy; });
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
