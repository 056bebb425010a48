#include "buffers/shared_memory.h"

#include <string>

#include "resources/resource.h"
#include "runtime/driver.h"
#include "runtime/errors.h"
#include "runtime/logger.h"

namespace rmmjs {
namespace {

struct Share {
  rmmjs_memory header;  // first: an rmmjs_memory* of a share is a Share*
  SharedMemory* shared;
};

}  // namespace

SharedMemory* SharedMemory::Owning(rmmjs_resource* mr, StreamObject* stream, void* ptr, size_t bytes, int device) {
  auto* shared = new SharedMemory();
  Retain(mr);
  stream->Retain();
  shared->mr_ = mr;
  shared->stream_ = stream;
  shared->ptr_ = ptr;
  shared->bytes_ = bytes;
  shared->device_ = device;
  shared->flags_ = (mr->flags & RMMJS_RESOURCE_THREAD_BOUND) != 0 ? RMMJS_MEMORY_THREAD_BOUND : 0;
  return shared;
}

SharedMemory* SharedMemory::Wrapping(rmmjs_memory* memory) {
  auto* shared = new SharedMemory();
  shared->lent_ = memory;
  shared->flags_ = memory->flags & RMMJS_MEMORY_THREAD_BOUND;
  return shared;
}

SharedMemory* SharedMemory::Of(const rmmjs_memory* memory) {
  return memory != nullptr && memory->release == ReleaseShare ? reinterpret_cast<const Share*>(memory)->shared
                                                              : nullptr;
}

rmmjs_memory* SharedMemory::NewShare(void* ptr, size_t bytes, int device) {
  shares_.fetch_add(1, std::memory_order_relaxed);
  auto* share = new Share{{sizeof(rmmjs_memory), ptr, bytes, device, flags_, ReleaseShare}, this};
  return &share->header;
}

void SharedMemory::ReleaseShare(rmmjs_memory* memory) {
  auto* share = reinterpret_cast<Share*>(memory);
  SharedMemory* shared = share->shared;
  delete share;
  shared->Release();
}

void SharedMemory::Release() {
  if (shares_.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  if (lent_ != nullptr) {
    lent_->release(lent_);
  } else {
    ContextScope scope(stream_->ContextDevice(device_));
    rmmjs_status status = scope.status();
    if (status == RMMJS_OK) status = Deallocate(mr_, ptr_, bytes_, stream_->handle());
    if (status != RMMJS_OK) {
      Log(RMMJS_LOG_ERROR,
          "DeviceBuffer: returning memory that was held by native code failed: " + std::string(ErrorMessage()));
    }
    rmmjs::Release(mr_);
    stream_->Release();
  }
  delete this;
}

}  // namespace rmmjs
