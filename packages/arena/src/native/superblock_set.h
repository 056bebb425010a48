// Superblocks and their free blocks, as RMM's arena keeps them (cpp/include/rmm/mr/detail/arena.hpp),
// with indexes where RMM scans: free blocks by address (to coalesce) and by size (best fit), so
// every search is O(log n). A superblock is a contiguous range of at least 1 MiB that moves as a
// whole between the global arena and the per-thread and per-stream arenas; a block never spans
// two superblocks. Not thread-safe: the arena that owns the set locks it.
#pragma once

#include <cstddef>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "rmmjs/stream_event.hpp"

namespace rmmjs::arena {

// RMM's superblock::minimum_size: also the largest request an arena serves from its superblocks.
inline constexpr std::size_t kMinimumSuperblockSize = std::size_t{1} << 20;

enum class FreeResult {
  kFreed,        // back among its superblock's free blocks
  kNotHere,      // no superblock of this set contains the block
  kNotAllocated  // part of the block is already free: a double free or a wrong size
};

struct SuperblockStats {
  std::size_t free_blocks = 0;
  std::size_t total_free = 0;
  std::size_t max_free = 0;
};

class SuperblockSet {
 public:
  struct Superblock {
    std::size_t size;
    FreedOn freed_on;  // in the global arena: the streams whose frees of it may be in flight
  };
  using Superblocks = std::map<char*, Superblock>;  // by start, in address order
  using Iterator = Superblocks::iterator;

  SuperblockSet() {
    spare_address_nodes_.reserve(kMaxSpareNodes);
    spare_size_nodes_.reserve(kMaxSpareNodes);
  }
  SuperblockSet(const SuperblockSet&) = delete;
  SuperblockSet& operator=(const SuperblockSet&) = delete;

  bool empty() const { return superblocks_.empty(); }
  std::size_t count() const { return superblocks_.size(); }
  Iterator begin() { return superblocks_.begin(); }
  Iterator end() { return superblocks_.end(); }

  // The superblock that starts at `start`, or end().
  Iterator Find(char* start) { return superblocks_.find(start); }

  // Adds [start, start + size) as one free superblock.
  void AddEmpty(char* start, std::size_t size);

  // `size` bytes from the front of the smallest free block that fits (the lowest address among
  // equals), or nullptr.
  char* Allocate(std::size_t size);

  // The superblock holding the smallest free block of at least `size` bytes, or end().
  Iterator BestFitSuperblock(std::size_t size);

  // Allocate for the global arena's large requests: when the best fit is a whole empty superblock
  // of at least size + 1 MiB, it is split first, so that the allocation is a superblock of its own
  // and the rest stays whole (as RMM's global_arena::first_fit).
  // *holder (when given) receives the superblock that holds the allocation.
  char* AllocateSplitting(std::size_t size, Iterator* holder = nullptr);

  // Returns [ptr, ptr + size) to the free blocks of the superblock holding it, coalescing with
  // its free neighbours in that superblock. *holder (when given) receives the superblock;
  // freed_on (when given) joins the superblock's before the block is free (it may throw
  // std::bad_alloc, changing nothing).
  FreeResult Free(char* ptr, std::size_t size, Iterator* holder = nullptr, const FreedOn* freed_on = nullptr);

  // What Free would answer, changing nothing.
  FreeResult Check(char* ptr, std::size_t size);

  bool IsEmpty(Iterator superblock) const;

  // Splits an empty superblock in two at `head_size` (both keep its freed_on); returns the head.
  Iterator SplitEmpty(Iterator superblock, std::size_t head_size);

  // Merges an empty superblock with the empty superblocks right before and after it (and their
  // freed_on); returns the merged one.
  Iterator CoalesceEmpty(Iterator superblock);

  // Moves a superblock, its free blocks and its freed_on to `other` (no allocation: nodes move as
  // they are); returns its position there.
  Iterator MoveTo(Iterator superblock, SuperblockSet& other);

  SuperblockStats Stats(Iterator superblock) const;

 private:
  static constexpr std::size_t kMaxSpareNodes = 64;
  using FreeByAddress = std::map<char*, std::size_t>;
  using FreeBySize = std::set<std::pair<std::size_t, char*>>;

  Iterator Holder(char* ptr, std::size_t size);
  char* TakeFront(FreeBySize::iterator by_size, std::size_t size);
  void InsertFree(char* start, std::size_t size, FreeByAddress::iterator hint);
  void EraseFree(FreeByAddress::iterator block);
  void ResizeFree(FreeByAddress::iterator block, std::size_t size);

  Superblocks superblocks_;
  FreeByAddress free_by_address_;
  FreeBySize free_by_size_;
  // Nodes of erased free blocks, reused by the next insertions: the hot path allocates nothing.
  std::vector<FreeByAddress::node_type> spare_address_nodes_;
  std::vector<FreeBySize::node_type> spare_size_nodes_;
};

}  // namespace rmmjs::arena
