#include "arena.h"

#include <mutex>

#include "rmmjs/resource.hpp"
#include "rmmjs/status.hpp"

namespace rmmjs::arena {

Arena::~Arena() {
  if (rmmjs_event event = event_.load()) {
    DeviceContext context(device_);
    CoreApi()->event_destroy(event);
  }
}

char* Arena::Allocate(std::size_t size) {
  std::lock_guard<SpinLock> lock(lock_);
  if (char* ptr = TakeCached(size)) return ptr;
  FlushCache();
  if (char* ptr = superblocks_.Allocate(size)) return ptr;
  if (!global_.Acquire(size, superblocks_)) return nullptr;
  return superblocks_.Allocate(size);
}

rmmjs_status Arena::Free(char* ptr, std::size_t size, rmmjs_stream stream, bool synchronized, FreeResult* result) {
  bool on_legacy_stream = IsLegacyDefaultStream(stream);
  bool pending = cuda_ && !synchronized;
  std::lock_guard<SpinLock> lock(lock_);
  *result = CheckFree(ptr, size);
  if (*result != FreeResult::kFreed) return RMMJS_OK;
  // Recorded before the block can be seen here (an enqueue: it does not wait for the stream).
  if (pending && !on_legacy_stream) {
    rmmjs_status status = RecordFree(stream);
    if (status != RMMJS_OK) {
      *result = FreeResult::kNotHere;
      return status;
    }
  }
  if (cached_count_ == kCachedBlocks) FlushCache();
  cached_[cached_count_++] = {ptr, size};
  if (pending) {
    (on_legacy_stream ? legacy_stream_frees_ : event_frees_) = true;
    frees_++;
  }
  return RMMJS_OK;
}

rmmjs_status Arena::Clean() {
  std::unique_lock<SpinLock> lock(lock_);
  if (superblocks_.empty()) return RMMJS_OK;
  if (legacy_stream_frees_ || event_frees_) {
    bool legacy = legacy_stream_frees_;
    bool event = event_frees_;
    std::uint64_t seen = frees_;
    lock.unlock();  // no lock held while the driver blocks
    RMMJS_TRY(Synchronize(legacy, event));
    lock.lock();
    // Frees that came in meanwhile (the owner thread kept working): rare, so synchronise again
    // holding the lock rather than loop.
    if (frees_ != seen) RMMJS_TRY(Synchronize(legacy_stream_frees_, event_frees_));
    legacy_stream_frees_ = event_frees_ = false;
  }
  FlushCache();
  global_.Release(superblocks_);
  return RMMJS_OK;
}

char* Arena::TakeCached(std::size_t size) {
  for (unsigned i = cached_count_; i-- > 0;) {
    if (cached_[i].size == size) {
      char* ptr = cached_[i].ptr;
      cached_[i] = cached_[--cached_count_];
      return ptr;
    }
  }
  return nullptr;
}

FreeResult Arena::CheckFree(char* ptr, std::size_t size) {
  FreeResult result = superblocks_.Check(ptr, size);
  if (result != FreeResult::kFreed) return result;
  for (unsigned i = 0; i < cached_count_; i++) {
    if (cached_[i].ptr < ptr + size && ptr < cached_[i].ptr + cached_[i].size) return FreeResult::kNotAllocated;
  }
  return FreeResult::kFreed;
}

void Arena::FlushCache() {
  for (unsigned i = 0; i < cached_count_; i++) superblocks_.Free(cached_[i].ptr, cached_[i].size);
  cached_count_ = 0;
}

rmmjs_status Arena::RecordFree(rmmjs_stream stream) {
  DeviceContext context(device_);
  RMMJS_TRY(context.status());
  rmmjs_event event = event_.load(std::memory_order_relaxed);
  if (event == nullptr) {
    RMMJS_TRY(CoreApi()->event_create(&event));
    event_.store(event, std::memory_order_release);  // Synchronize reads it without the lock
  }
  return CoreApi()->event_record(event, stream);
}

rmmjs_status Arena::Synchronize(bool legacy_stream, bool event) const {
  DeviceContext context(device_);
  RMMJS_TRY(context.status());
  if (legacy_stream) RMMJS_TRY(CoreApi()->stream_synchronize(0));
  if (event) RMMJS_TRY(CoreApi()->event_synchronize(event_.load(std::memory_order_acquire)));
  return RMMJS_OK;
}

}  // namespace rmmjs::arena
