#include "superblock_set.h"

#include "rmmjs/block_chain.hpp"

namespace rmmjs::arena {

SuperblockSet::~SuperblockSet() {
  for (Superblock* superblock = first_; superblock != nullptr;) {
    for (Block* block = superblock->first; block != nullptr;) {
      Block* next = block->next;
      delete block;
      block = next;
    }
    Superblock* next = superblock->next_in_set;
    delete superblock;
    superblock = next;
  }
}

void SuperblockSet::AddEmpty(char* start, std::size_t size) {
  Superblock* superblock = NewSuperblock();
  Block* block = nullptr;
  try {
    block = NewBlock();
  } catch (...) {
    Recycle(superblock);
    throw;
  }
  superblock->start = block->start = start;
  superblock->size = block->size = size;
  superblock->first = block;
  block->superblock = superblock;
  Link(superblock);
  Index(block);
}

Block* SuperblockSet::Allocate(std::size_t size) {
  const FreeBySize::Entry* fit = by_size_.BestFit(size);
  return fit == nullptr ? nullptr : TakeFront(fit->record, size);
}

Superblock* SuperblockSet::BestFitSuperblock(std::size_t size) const {
  const FreeBySize::Entry* fit = by_size_.BestFit(size);
  return fit == nullptr ? nullptr : fit->record->superblock;
}

Block* SuperblockSet::AllocateSplitting(std::size_t size) {
  const FreeBySize::Entry* fit = by_size_.BestFit(size);
  if (fit == nullptr) return nullptr;
  Block* block = fit->record;
  if (IsEmpty(block->superblock) && block->size >= size + kMinimumSuperblockSize) {
    CutTail(block->superblock, size);
    Unindex(block);
    block->size = size;
    return block;
  }
  return TakeFront(block, size);
}

// The front of a free block is handed out as a record of its own; the rest keeps the free record.
Block* SuperblockSet::TakeFront(Block* block, std::size_t size) {
  if (block->size == size) {
    Unindex(block);
    return block;
  }
  Block* front = NewBlock();  // before any change
  front->start = block->start;
  front->size = size;
  front->superblock = block->superblock;
  block_chain::LinkBefore(block->superblock, block, front);
  Rekey(block, block->start + size, block->size - size);
  return front;
}

FreeResult SuperblockSet::Free(Block* block, const FreedOn* freed_on) {
  FreeResult result = Check(block);
  if (result != FreeResult::kFreed) return result;
  if (freed_on != nullptr) block->superblock->freed_on.Merge(*freed_on);
  Block* previous = block->previous;
  Block* next = block->next;
  bool merge_previous = previous != nullptr && previous->free;
  bool merge_next = next != nullptr && next->free;
  if (merge_previous && merge_next) {
    std::size_t merged = previous->size + block->size + next->size;
    Unindex(next);
    Unchain(block);
    Unchain(next);
    Rekey(previous, previous->start, merged);
    Recycle(block);
    Recycle(next);
  } else if (merge_previous) {
    Unchain(block);
    Rekey(previous, previous->start, previous->size + block->size);
    Recycle(block);
  } else if (merge_next) {
    Unchain(block);
    Rekey(next, block->start, block->size + next->size);
    Recycle(block);
  } else {
    Index(block);
  }
  return FreeResult::kFreed;
}

FreeResult SuperblockSet::FreeCoalescing(Block* block, const FreedOn& freed_on) {
  Superblock* superblock = block->superblock;  // the record may merge into a neighbour's
  if (block->previous != nullptr || block->next != nullptr) {
    FreeResult result = Free(block, &freed_on);
    if (result == FreeResult::kFreed && IsEmpty(superblock)) CoalesceEmpty(superblock);
    return result;
  }
  FreeResult result = Check(block);
  if (result != FreeResult::kFreed) return result;
  Superblock* previous = superblock->previous_in_arena;
  Superblock* next = superblock->next_in_arena;
  bool merge_previous =
      previous != nullptr && previous->owner.load(std::memory_order_relaxed) == this && IsEmpty(previous);
  bool merge_next = next != nullptr && next->owner.load(std::memory_order_relaxed) == this && IsEmpty(next);
  superblock->freed_on.Merge(freed_on);  // what can fail, first
  if (merge_next) superblock->freed_on.Merge(next->freed_on);
  if (merge_previous) previous->freed_on.Merge(superblock->freed_on);
  if (merge_next) {
    Unindex(next->first);
    superblock->size += next->size;
    Drop(superblock, next);
  }
  if (merge_previous) {
    previous->size += superblock->size;
    Rekey(previous->first, previous->start, previous->size);
    Drop(previous, superblock);
  } else {
    block->size = superblock->size;
    Index(block);
  }
  return FreeResult::kFreed;
}

FreeResult SuperblockSet::Check(const Block* block) const {
  if (!Holds(block)) return FreeResult::kNotHere;
  return block->free ? FreeResult::kNotAllocated : FreeResult::kFreed;
}

Superblock* SuperblockSet::SplitEmpty(Superblock* superblock, std::size_t head_size) {
  CutTail(superblock, head_size);
  Rekey(superblock->first, superblock->start, head_size);
  return superblock;
}

// Makes the range after `head_size` of an empty superblock a superblock of its own, with one free
// block. The head's block keeps its size and index entry: the caller changes them.
void SuperblockSet::CutTail(Superblock* superblock, std::size_t head_size) {
  // Everything that can fail, first.
  Superblock* tail = NewSuperblock();
  Block* tail_block = nullptr;
  try {
    tail->freed_on = superblock->freed_on;
    tail_block = NewBlock();
  } catch (...) {
    Recycle(tail);
    throw;
  }
  tail->start = tail_block->start = superblock->start + head_size;
  tail->size = tail_block->size = superblock->size - head_size;
  tail->first = tail_block;
  tail_block->superblock = tail;
  tail->previous_in_arena = superblock;
  tail->next_in_arena = superblock->next_in_arena;
  if (superblock->next_in_arena != nullptr) superblock->next_in_arena->previous_in_arena = tail;
  superblock->next_in_arena = tail;
  superblock->size = head_size;
  Link(tail);
  Index(tail_block);
}

Superblock* SuperblockSet::CoalesceEmpty(Superblock* superblock) {
  Superblock* previous = superblock->previous_in_arena;
  if (previous != nullptr && previous->owner.load(std::memory_order_relaxed) == this && IsEmpty(previous)) {
    Absorb(previous, superblock);
    superblock = previous;
  }
  Superblock* next = superblock->next_in_arena;
  if (next != nullptr && next->owner.load(std::memory_order_relaxed) == this && IsEmpty(next)) {
    Absorb(superblock, next);
  }
  return superblock;
}

// Merges the empty superblock `upper` into the empty superblock `lower` right before it.
void SuperblockSet::Absorb(Superblock* lower, Superblock* upper) {
  lower->freed_on.Merge(upper->freed_on);  // before any change
  Unindex(upper->first);
  lower->size += upper->size;
  Rekey(lower->first, lower->start, lower->size);
  Drop(lower, upper);
}

// Takes `upper`, merged into `lower` right before it, out of the arena's and the set's lists, and
// recycles it with its block (no longer indexed).
void SuperblockSet::Drop(Superblock* lower, Superblock* upper) {
  lower->next_in_arena = upper->next_in_arena;
  if (upper->next_in_arena != nullptr) upper->next_in_arena->previous_in_arena = lower;
  Unlink(upper);
  Recycle(upper->first);
  Recycle(upper);
}

void SuperblockSet::MoveTo(Superblock* superblock, SuperblockSet& other) {
  for (Block* block = superblock->first; block != nullptr; block = block->next) {
    if (block->free) other.by_size_.MoveFrom(by_size_, &block->by_size);
  }
  Unlink(superblock);
  other.Link(superblock);
}

SuperblockStats SuperblockSet::Stats(const Superblock* superblock) {
  SuperblockStats stats;
  for (const Block* block = superblock->first; block != nullptr; block = block->next) {
    if (!block->free) continue;
    stats.free_blocks++;
    stats.total_free += block->size;
    if (block->size > stats.max_free) stats.max_free = block->size;
  }
  return stats;
}

void SuperblockSet::Recycle(Block* block) {
  block->previous = block->next = nullptr;
  block->superblock = nullptr;
  block->free = false;
  spare_blocks_.Recycle(block);
}

void SuperblockSet::Recycle(Superblock* superblock) {
  superblock->freed_on.Clear();
  superblock->first = nullptr;
  superblock->previous_in_arena = superblock->next_in_arena = nullptr;
  superblock->owner.store(nullptr, std::memory_order_relaxed);
  spare_superblocks_.Recycle(superblock);
}

void SuperblockSet::Link(Superblock* superblock) {
  superblock->previous_in_set = nullptr;
  superblock->next_in_set = first_;
  if (first_ != nullptr) first_->previous_in_set = superblock;
  first_ = superblock;
  count_++;
  superblock->owner.store(this, std::memory_order_release);
}

void SuperblockSet::Unlink(Superblock* superblock) {
  if (superblock->previous_in_set != nullptr) {
    superblock->previous_in_set->next_in_set = superblock->next_in_set;
  } else {
    first_ = superblock->next_in_set;
  }
  if (superblock->next_in_set != nullptr) superblock->next_in_set->previous_in_set = superblock->previous_in_set;
  superblock->previous_in_set = superblock->next_in_set = nullptr;
  count_--;
}

void SuperblockSet::Unchain(Block* block) { block_chain::Unlink(block->superblock, block); }

void SuperblockSet::Index(Block* block) {
  by_size_.Insert(&block->by_size, block->size, block->start);
  block->free = true;
}

void SuperblockSet::Unindex(Block* block) {
  by_size_.Remove(&block->by_size);
  block->free = false;
}

// Gives a free block a new start and size.
void SuperblockSet::Rekey(Block* block, char* start, std::size_t size) {
  block->start = start;
  block->size = size;
  by_size_.Rekey(&block->by_size, size, start);
}

}  // namespace rmmjs::arena
