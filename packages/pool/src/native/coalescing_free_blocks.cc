#include "coalescing_free_blocks.h"

#include <algorithm>
#include <iterator>
#include <utility>

namespace rmmjs {
namespace pool {

CoalescingFreeBlocks::~CoalescingFreeBlocks() {
  for (const std::unique_ptr<UpstreamBlock>& upstream : upstream_) {
    for (Block* block = upstream->first; block != nullptr;) {
      Block* next = block->next;
      delete block;
      block = next;
    }
  }
}

Block* CoalescingFreeBlocks::AddUpstream(uintptr_t begin, size_t size, size_t taken, StreamFreeList& list) {
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
    Index(list, free);
    list.free_bytes += free->size;
  }
  return taken == 0 ? nullptr : first;
}

void CoalescingFreeBlocks::RemoveUpstream(const UpstreamBlock* upstream) {
  for (Block* block = upstream->first; block != nullptr;) {
    Block* next = block->next;
    block->list->free_bytes -= block->size;
    Unindex(block);
    Recycle(block);
    block = next;
  }
  auto at = std::find_if(upstream_.begin(), upstream_.end(),
                         [upstream](const std::unique_ptr<UpstreamBlock>& u) { return u.get() == upstream; });
  upstream_.erase(at);
}

const UpstreamBlock* CoalescingFreeBlocks::FindUpstream(uintptr_t ptr) const {
  auto after = std::upper_bound(upstream_.begin(), upstream_.end(), ptr,
                                [](uintptr_t p, const std::unique_ptr<UpstreamBlock>& u) { return p < u->begin; });
  if (after == upstream_.begin()) return nullptr;
  const UpstreamBlock* upstream = std::prev(after)->get();
  return ptr < upstream->end() ? upstream : nullptr;
}

Block* CoalescingFreeBlocks::TakeBestFit(StreamFreeList& list, size_t size) {
  const SizeIndex::Entry* fit = list.by_size.BestFit(size);
  if (fit == nullptr) return nullptr;
  Block* block = fit->record;
  if (block->size == size) {
    Unindex(block);
    list.free_bytes -= size;
    return block;
  }
  // The front is handed out as a record of its own; the rest keeps the free record.
  Block* front = NewBlock();  // before any change
  front->start = block->start;
  front->size = size;
  front->upstream = block->upstream;
  front->previous = block->previous;
  front->next = block;
  if (block->previous != nullptr) {
    block->previous->next = front;
  } else {
    block->upstream->first = front;
  }
  block->previous = front;
  list.free_bytes -= size;
  Rekey(list, block, block->start + size, block->size - size);
  return front;
}

size_t CoalescingFreeBlocks::BestFitSize(const StreamFreeList& list, size_t size) {
  const SizeIndex::Entry* fit = list.by_size.BestFit(size);
  return fit == nullptr ? 0 : fit->size;
}

void CoalescingFreeBlocks::Free(StreamFreeList& list, Block* block) {
  list.free_bytes += block->size;
  Block* previous = block->previous;
  Block* next = block->next;
  const bool merge_previous = previous != nullptr && previous->list == &list;
  const bool merge_next = next != nullptr && next->list == &list;
  if (merge_previous && merge_next) {
    const size_t merged = previous->size + block->size + next->size;
    Unindex(next);
    Unchain(block);
    Unchain(next);
    Rekey(list, previous, previous->start, merged);
    Recycle(block);
    Recycle(next);
  } else if (merge_previous) {
    Unchain(block);
    Rekey(list, previous, previous->start, previous->size + block->size);
    Recycle(block);
  } else if (merge_next) {
    Unchain(block);
    Rekey(list, next, block->start, block->size + next->size);
    Recycle(block);
  } else {
    Index(list, block);
  }
}

Block* CoalescingFreeBlocks::BlockAt(const UpstreamBlock& upstream, uintptr_t ptr) {
  for (Block* block = upstream.first; block != nullptr && block->start <= ptr; block = block->next) {
    if (block->start == ptr) return block;
  }
  return nullptr;
}

bool CoalescingFreeBlocks::Overlaps(const UpstreamBlock& upstream, uintptr_t ptr, size_t size) {
  for (const Block* block = upstream.first; block != nullptr && block->start < ptr + size; block = block->next) {
    if (block->list != nullptr && block->start + block->size > ptr) return true;
  }
  return false;
}

void CoalescingFreeBlocks::MoveAll(StreamFreeList& from, StreamFreeList& to) {
  if (&from == &to) return;
  // Each block's entry moves as it is (no allocation), then it merges with its neighbours on to
  // (never with one on from: those would have merged on from already).
  while (!from.by_size.empty()) {
    Block* block = from.by_size.first();
    from.free_bytes -= block->size;
    to.free_bytes += block->size;
    to.by_size.MoveFrom(from.by_size, &block->by_size);
    block->list = &to;
    if (block->next != nullptr && block->next->list == &to) Absorb(to, block, block->next);
    if (block->previous != nullptr && block->previous->list == &to) Absorb(to, block->previous, block);
  }
}

void CoalescingFreeBlocks::Absorb(StreamFreeList& list, Block* lower, Block* upper) {
  const size_t size = lower->size + upper->size;
  Unindex(upper);
  Unchain(upper);
  Recycle(upper);
  Rekey(list, lower, lower->start, size);
}

bool CoalescingFreeBlocks::IsWhollyFree(const UpstreamBlock& upstream, std::vector<StreamFreeList*>* lists) {
  for (const Block* block = upstream.first; block != nullptr; block = block->next) {
    if (block->list == nullptr) return false;
  }
  for (const Block* block = upstream.first; block != nullptr; block = block->next) {
    if (std::find(lists->begin(), lists->end(), block->list) == lists->end()) lists->push_back(block->list);
  }
  return true;
}

void CoalescingFreeBlocks::Recycle(Block* block) {
  block->previous = block->next = nullptr;
  block->upstream = nullptr;
  block->list = nullptr;
  spare_blocks_.Recycle(block);
}

void CoalescingFreeBlocks::Unchain(Block* block) {
  if (block->previous != nullptr) {
    block->previous->next = block->next;
  } else {
    block->upstream->first = block->next;
  }
  if (block->next != nullptr) block->next->previous = block->previous;
}

void CoalescingFreeBlocks::Index(StreamFreeList& list, Block* block) {
  list.by_size.Insert(&block->by_size, block->size, block->start);
  block->list = &list;
}

void CoalescingFreeBlocks::Unindex(Block* block) {
  block->list->by_size.Remove(&block->by_size);
  block->list = nullptr;
}

// Gives a free block a new start and size.
void CoalescingFreeBlocks::Rekey(StreamFreeList& list, Block* block, uintptr_t start, size_t size) {
  block->start = start;
  block->size = size;
  list.by_size.Rekey(&block->by_size, size, start);
}

}  // namespace pool
}  // namespace rmmjs
