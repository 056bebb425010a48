// The pool's blocks: RMM's coalescing_free_list, one per stream, without a search by address.
//
// Every block, free or handed out, has a record (Block) in the address-ordered list of the
// upstream allocation it is part of; the records of an upstream allocation tile it. Whoever frees
// a block names its record (the pool remembers it with the pointer it handed out), so a free finds
// its neighbours without a search and coalescing costs O(1) beyond the size index. Each stream's
// free list is a size index (core's BestFitIndex, whose entries are members of the records): best
// fit is the smallest block that fits, the lowest address among equals, as RMM picks. Blocks
// coalesce only with neighbours on the same stream's list, and never across the ends of an
// upstream allocation (they are in different lists). Records are recycled, so the steady state
// allocates nothing and freeing never allocates.
// Not thread-safe: the pool's lock guards it (but see Block::size and Block::tracked).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "rmmjs/best_fit_index.hpp"
#include "rmmjs/spare_list.hpp"

namespace rmmjs {
namespace pool {

struct Block;
struct StreamFreeList;

// Each stream's free blocks by (size, start).
using SizeIndex = BestFitIndex<Block, uintptr_t>;

// One allocation taken from the upstream resource, with its blocks.
struct UpstreamBlock {
  uintptr_t begin;
  size_t size;
  Block* first;  // its blocks, in address order
  uintptr_t end() const { return begin + size; }
};

struct Block {
  uintptr_t start = 0;
  // Changed only while the block is free: a thread that holds a handed-out block's record may read
  // it without the lock.
  size_t size = 0;
  Block* previous = nullptr;  // the blocks before and after it in its upstream allocation
  Block* next = nullptr;
  UpstreamBlock* upstream = nullptr;
  StreamFreeList* list = nullptr;  // while free: the stream's list it is on; nullptr while handed out
  // While handed out: whether the pool's table of blocks handed out (or a thread's cache) holds it.
  // Set by whoever hands it out, which may be a thread without the lock.
  std::atomic<bool> tracked{false};
  SizeIndex::Entry by_size{this};  // in list's index while free
};

// The free blocks last used on one stream, by (size, start).
struct StreamFreeList {
  SizeIndex by_size;
  size_t free_bytes = 0;
  bool empty() const { return by_size.empty(); }
};

class CoalescingFreeBlocks {
 public:
  using UpstreamBlocks = std::vector<std::unique_ptr<UpstreamBlock>>;

  CoalescingFreeBlocks() = default;
  ~CoalescingFreeBlocks();  // deletes every record
  CoalescingFreeBlocks(const CoalescingFreeBlocks&) = delete;
  CoalescingFreeBlocks& operator=(const CoalescingFreeBlocks&) = delete;

  // Registers [begin, begin + size) from upstream: its first `taken` bytes handed out (their record
  // is returned), the rest free on list (all of it when taken is 0, and then nullptr is returned).
  // May throw std::bad_alloc, before it changes anything.
  Block* AddUpstream(uintptr_t begin, size_t size, size_t taken, StreamFreeList& list);

  // Forgets an upstream allocation that is wholly free, with its blocks.
  void RemoveUpstream(const UpstreamBlock* upstream);

  // The upstream allocations, by address (few: the pool grows geometrically).
  const UpstreamBlocks& upstream_blocks() const { return upstream_; }

  // The upstream allocation that contains ptr, or nullptr.
  const UpstreamBlock* FindUpstream(uintptr_t ptr) const;

  // Hands out the front of the best fit for size on list (the rest stays free there): its record,
  // or nullptr when no block on the list is large enough. May throw std::bad_alloc, before it
  // changes anything.
  Block* TakeBestFit(StreamFreeList& list, size_t size);

  // The size of the block TakeBestFit would split, or 0.
  static size_t BestFitSize(const StreamFreeList& list, size_t size);

  // Puts a handed-out block on list, coalescing it with its neighbours on the same list (never
  // allocates).
  void Free(StreamFreeList& list, Block* block);

  // The record of the block that starts at ptr in upstream, or nullptr (a walk: for the rare
  // frees that the pool's table cannot answer).
  static Block* BlockAt(const UpstreamBlock& upstream, uintptr_t ptr);

  // True when [ptr, ptr + size), inside upstream, overlaps a free block (a walk).
  static bool Overlaps(const UpstreamBlock& upstream, uintptr_t ptr, size_t size);

  // Moves every block of from onto to, coalescing (never allocates).
  void MoveAll(StreamFreeList& from, StreamFreeList& to);

  // True when free blocks cover all of upstream; the lists they are on are added to lists.
  static bool IsWhollyFree(const UpstreamBlock& upstream, std::vector<StreamFreeList*>* lists);

 private:
  Block* NewBlock() { return spare_blocks_.Take(); }  // may throw std::bad_alloc
  void Recycle(Block* block);
  static void Unchain(Block* block);                      // out of its upstream allocation's list
  static void Index(StreamFreeList& list, Block* block);  // now free on list
  static void Unindex(Block* block);                      // now handed out (or going)
  static void Rekey(StreamFreeList& list, Block* block, uintptr_t start, size_t size);
  // Merges upper, the free block right after lower on the same list, into lower.
  void Absorb(StreamFreeList& list, Block* lower, Block* upper);

  UpstreamBlocks upstream_;
  SpareList<Block, 1024> spare_blocks_;  // merged blocks' records, for the next splits
};

}  // namespace pool
}  // namespace rmmjs
