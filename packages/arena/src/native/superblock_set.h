// Superblocks and their blocks, as RMM's arena keeps them (cpp/include/rmm/mr/detail/arena.hpp),
// with an index where RMM scans: the free blocks by size class (best fit; core's BestFitIndex), so a
// search reads a bitmap and the smallest block of a class.
// A superblock is a contiguous range of at least 1 MiB that moves as a whole between the global
// arena and the per-thread and per-stream arenas; a block never spans two superblocks.
//
// Every block, free or handed out, has a record (Block) in its superblock's address-ordered list,
// and whoever frees a block names its record (the resource remembers it with the pointer): a free
// finds its neighbours, its superblock and the set that holds it without a search, and coalescing
// costs O(1) beyond the size index (core's BestFitIndex, whose entries are members of the
// records), so freeing never allocates. Not thread-safe: the arena that owns the set locks it.
#pragma once

#include <atomic>
#include <cstddef>

#include "rmmjs/best_fit_index.hpp"
#include "rmmjs/spare_list.hpp"
#include "rmmjs/stream_event.hpp"

namespace rmmjs::arena {

// RMM's superblock::minimum_size: also the largest request an arena serves from its superblocks.
inline constexpr std::size_t kMinimumSuperblockSize = std::size_t{1} << 20;

enum class FreeResult {
  kFreed,        // back among its superblock's free blocks
  kNotHere,      // no superblock of this set contains the block
  kNotAllocated  // the block is already free
};

struct SuperblockStats {
  std::size_t free_blocks = 0;
  std::size_t total_free = 0;
  std::size_t max_free = 0;
};

struct Block;
class SuperblockSet;

// A set's free blocks by (size, start).
using FreeBySize = BestFitIndex<Block, const char*>;

struct Superblock {
  char* start = nullptr;
  std::size_t size = 0;
  FreedOn freed_on;        // in the global arena: the streams whose frees of it may be in flight
  Block* first = nullptr;  // its blocks, in address order
  // The superblocks right before and after it in the arena's range, whichever set holds them: read
  // and changed only by the global arena, under its lock.
  Superblock* previous_in_arena = nullptr;
  Superblock* next_in_arena = nullptr;
  // The other superblocks of its set, in no order.
  Superblock* previous_in_set = nullptr;
  Superblock* next_in_set = nullptr;
  // The set that holds it: changed with the locks of both sets held, so a free can look it up
  // without a lock and check it again under the lock of the set it found.
  std::atomic<const SuperblockSet*> owner{nullptr};
};

struct Block {
  char* start = nullptr;
  std::size_t size = 0;
  Block* previous = nullptr;  // the blocks before and after it in its superblock
  Block* next = nullptr;
  Superblock* superblock = nullptr;
  bool free = false;
  FreeBySize::Entry by_size{this};  // in its set's index while free
};

class SuperblockSet {
 public:
  SuperblockSet() = default;
  ~SuperblockSet();  // deletes its superblocks and their blocks
  SuperblockSet(const SuperblockSet&) = delete;
  SuperblockSet& operator=(const SuperblockSet&) = delete;

  bool empty() const { return count_ == 0; }
  std::size_t count() const { return count_; }
  // Its superblocks in no order: follow next_in_set.
  Superblock* first() const { return first_; }

  bool Holds(const Block* block) const { return block->superblock->owner.load(std::memory_order_acquire) == this; }

  // Adds [start, start + size) as one free superblock, the whole of the arena's range.
  void AddEmpty(char* start, std::size_t size);

  // `size` bytes from the front of the smallest free block that fits (the lowest address among
  // equals), or nullptr. May throw std::bad_alloc, changing nothing.
  Block* Allocate(std::size_t size);

  // The superblock holding the smallest free block of at least `size` bytes, or nullptr.
  Superblock* BestFitSuperblock(std::size_t size) const;

  // Allocate for the global arena's large requests: when the best fit is a whole empty superblock
  // of at least size + 1 MiB, it is split first, so that the allocation is a superblock of its own
  // and the rest stays whole (as RMM's global_arena::first_fit). May throw std::bad_alloc,
  // changing nothing.
  Block* AllocateSplitting(std::size_t size);

  // Returns a handed-out block to the free blocks of its superblock, coalescing with its free
  // neighbours there. freed_on (when given) joins the superblock's before the block is free (it
  // may throw std::bad_alloc, changing nothing).
  FreeResult Free(Block* block, const FreedOn* freed_on = nullptr);

  // Free for the global arena: an empty superblock is then merged with its empty neighbours, as
  // CoalesceEmpty (a block that was its superblock's only one is indexed once, merged).
  FreeResult FreeCoalescing(Block* block, const FreedOn& freed_on);

  // What Free would answer, changing nothing.
  FreeResult Check(const Block* block) const;

  static bool IsEmpty(const Superblock* superblock) {
    return superblock->first->free && superblock->first->next == nullptr;
  }

  // Splits an empty superblock in two at `head_size` (both keep its freed_on); returns the head.
  // May throw std::bad_alloc, changing nothing.
  Superblock* SplitEmpty(Superblock* superblock, std::size_t head_size);

  // Merges an empty superblock with the empty superblocks of this set right before and after it
  // in the arena (and their freed_on); returns the merged one. May throw std::bad_alloc (merging
  // freed_on), leaving every superblock whole.
  Superblock* CoalesceEmpty(Superblock* superblock);

  // Moves a superblock, its free blocks and its freed_on to `other` (no allocation).
  void MoveTo(Superblock* superblock, SuperblockSet& other);

  static SuperblockStats Stats(const Superblock* superblock);

 private:
  static constexpr std::size_t kMaxSpares = 64;

  Block* NewBlock() { return spare_blocks_.Take(); }  // may throw std::bad_alloc
  Superblock* NewSuperblock() { return spare_superblocks_.Take(); }
  void Recycle(Block* block);
  void Recycle(Superblock* superblock);
  void Link(Superblock* superblock);  // into this set's list
  void Unlink(Superblock* superblock);
  static void Unchain(Block* block);  // out of its superblock's list
  void Index(Block* block);           // now free
  void Unindex(Block* block);         // now handed out
  void Rekey(Block* block, char* start, std::size_t size);
  Block* TakeFront(Block* block, std::size_t size);
  void CutTail(Superblock* superblock, std::size_t head_size);
  void Absorb(Superblock* lower, Superblock* upper);
  void Drop(Superblock* lower, Superblock* upper);

  FreeBySize by_size_;
  Superblock* first_ = nullptr;
  std::size_t count_ = 0;
  // Records of merged blocks and superblocks, reused by the next splits.
  SpareList<Block, kMaxSpares> spare_blocks_;
  SpareList<Superblock, kMaxSpares> spare_superblocks_;
};

}  // namespace rmmjs::arena
