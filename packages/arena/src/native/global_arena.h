// RMM's global_arena: the one block taken from the upstream resource, cut into superblocks that
// the per-thread and per-stream arenas acquire and release. Requests over 1 MiB are served here
// directly. Thread-safe (one mutex, taken only when superblocks move or for those large requests).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "superblock_set.h"

namespace rmmjs::arena {

class GlobalArena {
 public:
  GlobalArena() = default;
  GlobalArena(const GlobalArena&) = delete;
  GlobalArena& operator=(const GlobalArena&) = delete;

  // Takes [base, base + size) (the upstream block) as one superblock.
  void Initialize(char* base, std::size_t size);
  char* base() const { return base_; }
  std::size_t size() const { return size_; }

  // RMM's global_arena::handles: requests larger than a minimum superblock bypass the arenas.
  static bool Handles(std::size_t size) { return size > kMinimumSuperblockSize; }

  // Moves a superblock with a free block of at least `size` bytes into `arena` (an empty one is
  // first cut down to 1 MiB when it is at least 2 MiB). False when none fits. The caller holds
  // the lock of the arena that `arena` belongs to.
  bool Acquire(std::size_t size, SuperblockSet& arena);

  // Moves every superblock of `arena` here (the caller holds that arena's lock).
  void Release(SuperblockSet& arena);

  // A large allocation, or nullptr.
  char* Allocate(std::size_t size);

  FreeResult Free(char* ptr, std::size_t size);

  // Counts superblock moves between this and the arenas: a search for a block that finds it
  // nowhere is repeated when a move happened meanwhile.
  std::uint64_t moves() const { return moves_.load(std::memory_order_acquire); }

  struct Summary {
    std::size_t superblocks;
    std::size_t free_bytes;
    std::size_t largest_free_block;
  };
  Summary Summarize();

  // RMM's global_arena::dump_memory_log, through the debug logger.
  void DumpMemoryLog();

 private:
  std::mutex mutex_;
  SuperblockSet superblocks_;
  std::atomic<std::uint64_t> moves_{0};
  char* base_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace rmmjs::arena
