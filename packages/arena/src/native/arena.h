// RMM's arena: a per-thread (default streams) or per-stream (other streams) pool of superblocks
// acquired from the global arena, serving requests of up to 1 MiB. Each arena has its own lock,
// so threads that use their own arenas share no lock on the hot path.
//
// A few freed blocks wait in a small cache before they are coalesced, and an allocation of
// exactly one of their sizes takes the latest (RMM names "allocation caches" as a possible
// improvement): an allocate+free pair then only looks the block up. Any other allocation first
// coalesces the cached blocks, so what fits after coalescing is found as in RMM.
//
// Stream order: memory freed here is reused at once by this arena, whose allocations are on the
// same stream (a stream arena) or on the same thread's default streams (a thread arena). When
// superblocks leave it (Clean: defragmentation, the thread's exit) they carry the streams of the
// frees made here (the legacy default stream's lazily recorded event, and the event recorded at
// each free on the arena's own stream: an enqueue, with the arena's lock held), and an arena that
// acquires a superblock orders its stream after them. RMM synchronises the whole device instead.
#pragma once

#include <cstddef>
#include <cstdint>

#include <memory>

#include "global_arena.h"
#include "rmmjs/abi.h"
#include "rmmjs/biased_lock.hpp"
#include "rmmjs/stream_event.hpp"
#include "rmmjs/stream_key.hpp"
#include "superblock_set.h"

namespace rmmjs::arena {

// Aligned to a cache line, so that the arenas of two threads never share one.
class alignas(64) Arena {
 public:
  // `event`: the event of the arena's own stream (its created stream, or the thread's per-thread
  // default stream); `legacy`: the legacy default stream's (a thread arena's frees on it).
  Arena(GlobalArena& global, int32_t device, bool cuda, std::shared_ptr<StreamEvent> event,
        std::shared_ptr<StreamEvent> legacy)
      : global_(global), device_(device), cuda_(cuda), event_(std::move(event)), legacy_(std::move(legacy)) {}
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  // A block of `size` bytes (256-aligned, at most 1 MiB) for an allocation on `stream` (key
  // `taker`), acquiring a superblock from the global arena when none fits (`stream` is ordered
  // after the frees of it first); *out nullptr when the global arena has none either.
  rmmjs_status Allocate(std::size_t size, const StreamKey& taker, rmmjs_stream stream, Block** out);

  // Frees a block this arena holds (*result kNotHere otherwise). `synchronized`: the caller
  // already synchronised `stream`, so the block needs no synchronisation before it moves on.
  rmmjs_status Free(Block* block, rmmjs_stream stream, bool synchronized, FreeResult* result);

  // Returns every superblock to the global arena, freed on the streams of the frees made here.
  rmmjs_status Clean();

  const std::shared_ptr<StreamEvent>& event() const { return event_; }

 private:
  static constexpr unsigned kCachedBlocks = 8;

  Block* TakeCached(std::size_t size);
  FreeResult CheckFree(const Block* block);
  void FlushCache();
  rmmjs_status RecordFree(rmmjs_stream stream);  // with lock_ held

  GlobalArena& global_;
  const int32_t device_;
  const bool cuda_;
  const std::shared_ptr<StreamEvent> event_;
  const std::shared_ptr<StreamEvent> legacy_;
  BiasedLock lock_;  // a thread's own arena: biased to it
  SuperblockSet superblocks_;
  Block* cached_[kCachedBlocks] = {};  // freed, not yet among superblocks_'s free blocks
  unsigned cached_count_ = 0;
  // Frees made here since the superblocks last left (guarded by lock_): on the legacy default
  // stream, and on the arena's own stream (event_ recorded).
  bool legacy_stream_frees_ = false;
  bool event_frees_ = false;
};

}  // namespace rmmjs::arena
