#include "arena.h"

#include <mutex>
#include <new>

#include "rmmjs/resource.hpp"
#include "rmmjs/status.hpp"

namespace rmmjs::arena {

rmmjs_status Arena::Allocate(std::size_t size, const StreamKey& taker, rmmjs_stream stream, Block** out) {
  BiasedLock::Guard lock(lock_);
  if ((*out = TakeCached(size)) != nullptr) return RMMJS_OK;
  FlushCache();
  if ((*out = superblocks_.Allocate(size)) != nullptr) return RMMJS_OK;
  FreedOn freed_on;
  Superblock* superblock = global_.Acquire(size, superblocks_, &freed_on);
  if (superblock == nullptr) return RMMJS_OK;
  // Enqueued under the lock: the superblock's blocks are visible to this arena's other users.
  rmmjs_status status = freed_on.OrderBefore(taker, stream, device_);
  if (status != RMMJS_OK) {
    global_.GiveBack(superblock, superblocks_, std::move(freed_on));
    return status;
  }
  *out = superblocks_.Allocate(size);
  return RMMJS_OK;
}

rmmjs_status Arena::Free(Block* block, rmmjs_stream stream, bool synchronized, FreeResult* result) {
  bool on_legacy_stream = IsLegacyDefaultStream(stream);
  bool pending = cuda_ && !synchronized;
  BiasedLock::Guard lock(lock_);
  *result = CheckFree(block);
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
  cached_[cached_count_++] = block;
  if (pending) (on_legacy_stream ? legacy_stream_frees_ : event_frees_) = true;
  return RMMJS_OK;
}

rmmjs_status Arena::Clean() try {
  BiasedLock::Guard lock(lock_);
  if (superblocks_.empty()) return RMMJS_OK;
  FreedOn freed_on;
  if (legacy_stream_frees_) freed_on.Add(legacy_);
  if (event_frees_) freed_on.Add(event_);
  FlushCache();
  global_.Release(superblocks_, freed_on);
  legacy_stream_frees_ = event_frees_ = false;
  return RMMJS_OK;
} catch (const std::bad_alloc&) {
  return FailOutOfHostMemory("ArenaMemoryResource");
}

Block* Arena::TakeCached(std::size_t size) {
  for (unsigned i = cached_count_; i-- > 0;) {
    if (cached_[i]->size == size) {
      Block* block = cached_[i];
      cached_[i] = cached_[--cached_count_];
      return block;
    }
  }
  return nullptr;
}

FreeResult Arena::CheckFree(const Block* block) {
  FreeResult result = superblocks_.Check(block);
  if (result != FreeResult::kFreed) return result;
  for (unsigned i = 0; i < cached_count_; i++) {
    if (cached_[i] == block) return FreeResult::kNotAllocated;
  }
  return FreeResult::kFreed;
}

void Arena::FlushCache() {
  for (unsigned i = 0; i < cached_count_; i++) superblocks_.Free(cached_[i]);
  cached_count_ = 0;
}

rmmjs_status Arena::RecordFree(rmmjs_stream stream) {
  DeviceContext context(device_);
  RMMJS_TRY(context.status());
  return event_->RecordFree(stream);
}

}  // namespace rmmjs::arena
