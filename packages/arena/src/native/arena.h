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
// same stream (a stream arena) or on the same thread's default streams (a thread arena). Before
// superblocks leave it (Clean: defragmentation, the thread's exit) the frees are synchronised:
// the legacy default stream is synchronised, and frees on other streams are covered by an event
// recorded at each free (an enqueue, with the arena's lock held). RMM synchronises the whole device instead (core's API
// has no device synchronize, and an event also covers streams that were destroyed since).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "global_arena.h"
#include "rmmjs/abi.h"
#include "rmmjs/spin_lock.hpp"
#include "superblock_set.h"

namespace rmmjs::arena {

// Aligned to a cache line, so that the arenas of two threads never share one.
class alignas(64) Arena {
 public:
  Arena(GlobalArena& global, int32_t device, bool cuda) : global_(global), device_(device), cuda_(cuda) {}
  ~Arena();
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  // A block of `size` bytes (256-aligned, at most 1 MiB), acquiring a superblock from the global
  // arena when none fits; nullptr when the global arena has none either.
  char* Allocate(std::size_t size);

  // Frees a block this arena holds (*result kNotHere otherwise). `synchronized`: the caller
  // already synchronised `stream`, so the block needs no synchronisation before it moves on.
  rmmjs_status Free(char* ptr, std::size_t size, rmmjs_stream stream, bool synchronized, FreeResult* result);

  // Synchronises the frees made here, then returns every superblock to the global arena.
  rmmjs_status Clean();

 private:
  struct CachedBlock {
    char* ptr;
    std::size_t size;
  };
  static constexpr unsigned kCachedBlocks = 8;

  char* TakeCached(std::size_t size);
  FreeResult CheckFree(char* ptr, std::size_t size);
  void FlushCache();
  rmmjs_status RecordFree(rmmjs_stream stream);  // with lock_ held
  rmmjs_status Synchronize(bool legacy_stream, bool event) const;

  GlobalArena& global_;
  const int32_t device_;
  const bool cuda_;
  SpinLock lock_;
  SuperblockSet superblocks_;
  CachedBlock cached_[kCachedBlocks] = {};  // freed, not yet in superblocks_'s free blocks
  unsigned cached_count_ = 0;
  // Frees not yet synchronised (guarded by lock_): on the legacy default stream, and on the
  // stream `event_` was last recorded on. frees_ counts them, so Clean sees frees that came in
  // while it synchronised without holding the lock.
  bool legacy_stream_frees_ = false;
  bool event_frees_ = false;
  std::uint64_t frees_ = 0;
  std::atomic<rmmjs_event> event_{nullptr};
};

}  // namespace rmmjs::arena
