// RMM's coalescing_free_list, one per stream, without a search by address: the FreeList of a
// stream-ordered suballocator (rmmjs/stream_ordered_resource.hpp) that cuts blocks of any size from
// allocations it takes from its upstream, as PoolMemoryResource does.
//
// Every block, free or handed out, has a record (coalescing::Block) in the address-ordered chain of
// the upstream allocation it is part of; the records of an upstream allocation tile it.
// CoalescingBlocks owns the upstream allocations and every record; each stream's
// CoalescingFreeList indexes its free blocks by size (core's BestFitIndex, whose entries are members
// of the records): best fit is the smallest block that fits, the lowest address among equals, as
// RMM picks. Whoever frees a block names its record (the policy remembers it with the pointer it
// handed out), so a free finds its neighbours without a search and coalescing costs O(1) beyond the
// size index. Blocks coalesce only with neighbours on the same list, and never across the ends of an
// upstream allocation. Records are recycled (rmmjs/spare_list.hpp), so the steady state allocates
// nothing and freeing never allocates.
// Not thread-safe: the resource's lock guards it (but see Block::size and Block::tracked).
#ifndef RMMJS_COALESCING_FREE_LIST_HPP
#define RMMJS_COALESCING_FREE_LIST_HPP

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <utility>
#include <vector>

#include "rmmjs/best_fit_index.hpp"
#include "rmmjs/block_chain.hpp"
#include "rmmjs/spare_list.hpp"

namespace rmmjs {

class CoalescingFreeList;

namespace coalescing {

struct Block;

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
  CoalescingFreeList* list = nullptr;  // while free: the stream's list it is on; nullptr while handed out
  // The policy's, for a table of the blocks it handed out: whether that table (or a thread's cache)
  // holds the record. Set by whoever hands the block out, which may be a thread without the lock.
  std::atomic<bool> tracked{false};
  SizeIndex::Entry by_size{this};  // in list's index while free
};

}  // namespace coalescing

// The upstream allocations of a resource and the records of their blocks, shared by its lists.
class CoalescingBlocks {
 public:
  using Block = coalescing::Block;
  using UpstreamBlock = coalescing::UpstreamBlock;
  using UpstreamBlocks = std::vector<std::unique_ptr<UpstreamBlock>>;

  CoalescingBlocks() = default;
  ~CoalescingBlocks() {  // deletes every record
    for (const std::unique_ptr<UpstreamBlock>& upstream : upstream_) {
      for (Block* block = upstream->first; block != nullptr;) {
        Block* next = block->next;
        delete block;
        block = next;
      }
    }
  }
  CoalescingBlocks(const CoalescingBlocks&) = delete;
  CoalescingBlocks& operator=(const CoalescingBlocks&) = delete;

  // Registers [begin, begin + size) from upstream: its first `taken` bytes handed out (their record
  // is returned), the rest free on list (all of it when taken is 0, and then nullptr is returned).
  // May throw std::bad_alloc, before it changes anything.
  Block* AddUpstream(uintptr_t begin, size_t size, size_t taken, CoalescingFreeList& list);

  // Forgets an upstream allocation that is wholly free, with its blocks.
  void RemoveUpstream(const UpstreamBlock* upstream);

  // The upstream allocations, by address (few: a pool grows geometrically).
  const UpstreamBlocks& upstream_blocks() const { return upstream_; }

  // The upstream allocation that contains ptr, or nullptr.
  const UpstreamBlock* FindUpstream(uintptr_t ptr) const {
    auto after = std::upper_bound(upstream_.begin(), upstream_.end(), ptr,
                                  [](uintptr_t p, const std::unique_ptr<UpstreamBlock>& u) { return p < u->begin; });
    if (after == upstream_.begin()) return nullptr;
    const UpstreamBlock* upstream = std::prev(after)->get();
    return ptr < upstream->end() ? upstream : nullptr;
  }

  // The record of the block that starts at ptr in upstream, or nullptr (a walk: for the rare frees
  // that a policy's table of blocks handed out cannot answer).
  static Block* BlockAt(const UpstreamBlock& upstream, uintptr_t ptr) {
    for (Block* block = upstream.first; block != nullptr && block->start <= ptr; block = block->next) {
      if (block->start == ptr) return block;
    }
    return nullptr;
  }

  // True when [ptr, ptr + size), inside upstream, overlaps a free block (a walk).
  static bool Overlaps(const UpstreamBlock& upstream, uintptr_t ptr, size_t size) {
    for (const Block* block = upstream.first; block != nullptr && block->start < ptr + size; block = block->next) {
      if (block->list != nullptr && block->start + block->size > ptr) return true;
    }
    return false;
  }

  // True when free blocks cover all of upstream; the lists they are on are added to lists.
  static bool IsWhollyFree(const UpstreamBlock& upstream, std::vector<CoalescingFreeList*>* lists) {
    for (const Block* block = upstream.first; block != nullptr; block = block->next) {
      if (block->list == nullptr) return false;
    }
    for (const Block* block = upstream.first; block != nullptr; block = block->next) {
      if (std::find(lists->begin(), lists->end(), block->list) == lists->end()) lists->push_back(block->list);
    }
    return true;
  }

 private:
  friend class CoalescingFreeList;

  Block* NewBlock() { return spare_blocks_.Take(); }  // may throw std::bad_alloc
  void Recycle(Block* block) {
    block->previous = block->next = nullptr;
    block->upstream = nullptr;
    block->list = nullptr;
    spare_blocks_.Recycle(block);
  }
  // Out of its upstream allocation's chain.
  static void Unchain(Block* block) { block_chain::Unlink(block->upstream, block); }

  UpstreamBlocks upstream_;
  SpareList<Block, 1024> spare_blocks_;  // merged blocks' records, for the next splits
};

// One stream's free blocks, by (size, start).
class CoalescingFreeList {
 public:
  using Block = coalescing::Block*;  // a block's record; nullptr is none

  explicit CoalescingFreeList(CoalescingBlocks& blocks) : blocks_(blocks) {}

  bool empty() const { return by_size_.empty(); }
  size_t free_bytes() const { return free_bytes_; }

  // The size of the block Take would cut `size` bytes from, or 0.
  size_t Fit(size_t size) const {
    const coalescing::SizeIndex::Entry* fit = by_size_.BestFit(size);
    return fit == nullptr ? 0 : fit->size;
  }

  // Hands out the front of the best fit for size (the rest stays free here): its record, or
  // nullptr when no block is large enough. May throw std::bad_alloc, before it changes anything.
  Block Take(size_t size) {
    const coalescing::SizeIndex::Entry* fit = by_size_.BestFit(size);
    if (fit == nullptr) return nullptr;
    coalescing::Block* block = fit->record;
    if (block->size == size) {
      Unindex(block);
      free_bytes_ -= size;
      return block;
    }
    // The front is handed out as a record of its own; the rest keeps the free record.
    coalescing::Block* front = blocks_.NewBlock();  // before any change
    front->start = block->start;
    front->size = size;
    front->upstream = block->upstream;
    block_chain::LinkBefore(block->upstream, block, front);
    free_bytes_ -= size;
    Rekey(block, block->start + size, block->size - size);
    return front;
  }

  // Puts a handed-out block here, coalescing it with its neighbours on this list (never allocates).
  void Insert(Block block) {
    free_bytes_ += block->size;
    coalescing::Block* previous = block->previous;
    coalescing::Block* next = block->next;
    const bool merge_previous = previous != nullptr && previous->list == this;
    const bool merge_next = next != nullptr && next->list == this;
    if (merge_previous && merge_next) {
      const size_t merged = previous->size + block->size + next->size;
      Unindex(next);
      CoalescingBlocks::Unchain(block);
      CoalescingBlocks::Unchain(next);
      Rekey(previous, previous->start, merged);
      blocks_.Recycle(block);
      blocks_.Recycle(next);
    } else if (merge_previous) {
      CoalescingBlocks::Unchain(block);
      Rekey(previous, previous->start, previous->size + block->size);
      blocks_.Recycle(block);
    } else if (merge_next) {
      CoalescingBlocks::Unchain(block);
      Rekey(next, block->start, block->size + next->size);
      blocks_.Recycle(block);
    } else {
      Index(block);
    }
  }

  // Moves every block of this list onto `to`, coalescing (never allocates).
  void MoveAllTo(CoalescingFreeList& to) {
    if (&to == this) return;
    // Each block's entry moves as it is (no allocation), then it merges with its neighbours on to
    // (never with one on this list: those would have merged here already).
    while (!by_size_.empty()) {
      coalescing::Block* block = by_size_.first();
      free_bytes_ -= block->size;
      to.free_bytes_ += block->size;
      to.by_size_.MoveFrom(by_size_, &block->by_size);
      block->list = &to;
      if (block->next != nullptr && block->next->list == &to) to.Absorb(block, block->next);
      if (block->previous != nullptr && block->previous->list == &to) to.Absorb(block->previous, block);
    }
  }

 private:
  friend class CoalescingBlocks;

  // Now free here.
  void Index(coalescing::Block* block) {
    by_size_.Insert(&block->by_size, block->size, block->start);
    block->list = this;
  }
  // Now handed out (or going).
  void Unindex(coalescing::Block* block) {
    by_size_.Remove(&block->by_size);
    block->list = nullptr;
  }
  // Gives a free block a new start and size.
  void Rekey(coalescing::Block* block, uintptr_t start, size_t size) {
    block->start = start;
    block->size = size;
    by_size_.Rekey(&block->by_size, size, start);
  }
  // Merges upper, the free block right after lower on this list, into lower.
  void Absorb(coalescing::Block* lower, coalescing::Block* upper) {
    const size_t size = lower->size + upper->size;
    Unindex(upper);
    CoalescingBlocks::Unchain(upper);
    blocks_.Recycle(upper);
    Rekey(lower, lower->start, size);
  }

  coalescing::SizeIndex by_size_;
  size_t free_bytes_ = 0;
  CoalescingBlocks& blocks_;
};

inline coalescing::Block* CoalescingBlocks::AddUpstream(uintptr_t begin, size_t size, size_t taken,
                                                        CoalescingFreeList& list) {
  // Everything that can fail, first.
  auto upstream = std::make_unique<UpstreamBlock>(UpstreamBlock{begin, size, nullptr});
  Block* first = NewBlock();
  Block* rest = nullptr;
  try {
    if (taken != 0 && taken < size) rest = NewBlock();
    upstream_.reserve(upstream_.size() + 1);
  } catch (...) {
    Recycle(first);
    if (rest != nullptr) Recycle(rest);
    throw;
  }
  auto at = std::upper_bound(upstream_.begin(), upstream_.end(), begin,
                             [](uintptr_t p, const std::unique_ptr<UpstreamBlock>& u) { return p < u->begin; });
  UpstreamBlock* added = upstream_.insert(at, std::move(upstream))->get();
  added->first = first;
  first->upstream = added;
  first->start = begin;
  first->size = taken == 0 ? size : taken;
  if (rest != nullptr) {
    rest->upstream = added;
    rest->start = begin + taken;
    rest->size = size - taken;
    rest->previous = first;
    first->next = rest;
  }
  Block* free = taken == 0 ? first : rest;
  if (free != nullptr) {
    list.Index(free);
    list.free_bytes_ += free->size;
  }
  return taken == 0 ? nullptr : first;
}

inline void CoalescingBlocks::RemoveUpstream(const UpstreamBlock* upstream) {
  for (Block* block = upstream->first; block != nullptr;) {
    Block* next = block->next;
    block->list->free_bytes_ -= block->size;
    block->list->Unindex(block);
    Recycle(block);
    block = next;
  }
  auto at = std::find_if(upstream_.begin(), upstream_.end(),
                         [upstream](const std::unique_ptr<UpstreamBlock>& u) { return u.get() == upstream; });
  upstream_.erase(at);
}

}  // namespace rmmjs

#endif  // RMMJS_COALESCING_FREE_LIST_HPP
