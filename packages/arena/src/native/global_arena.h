// RMM's global_arena: the one block taken from the upstream resource, cut into superblocks that
// the per-thread and per-stream arenas acquire and release. Requests over 1 MiB are served here
// directly. Thread-safe (one lock, taken only when superblocks move or for those large requests;
// biased to the first thread that takes it, as a process with one thread allocating is common).
// Nothing here waits for a stream: each superblock carries the streams its memory was freed on
// (FreedOn), and whoever takes memory from it orders its own stream after them.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "rmmjs/biased_lock.hpp"
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
  // first cut down to 1 MiB when it is at least 2 MiB); returns it, or nullptr when none fits.
  // *freed_on receives the streams whose frees of it may still be in flight: the taker's stream is
  // ordered after them before the superblock is used. The caller holds the lock of the arena that
  // `arena` belongs to.
  Superblock* Acquire(std::size_t size, SuperblockSet& arena, FreedOn* freed_on);

  // Takes back the superblock that Acquire just moved into `arena`, untouched since, with what it
  // was freed on (the taker's stream could not be ordered after it).
  void GiveBack(Superblock* superblock, SuperblockSet& arena, FreedOn freed_on);

  // Moves every superblock of `arena` here, freed on `freed_on` (the caller holds that arena's lock).
  void Release(SuperblockSet& arena, const FreedOn& freed_on);

  // A large allocation for a taker on the stream with key `taker`, or nullptr. *freed_on: as
  // Acquire's, for the superblock holding it (left empty when all of them were on the taker's).
  Block* Allocate(std::size_t size, const StreamKey& taker, FreedOn* freed_on);

  // Frees a block freed on `freed_on` (empty: its work is done).
  FreeResult Free(Block* block, const FreedOn& freed_on);

  // What Free would answer, changing nothing.
  FreeResult Check(const Block* block);

  // Every stream whose frees of memory here may still be in flight.
  FreedOn FreedOnAll();

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
  BiasedLock lock_;
  SuperblockSet superblocks_;
  std::atomic<std::uint64_t> moves_{0};
  char* base_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace rmmjs::arena
