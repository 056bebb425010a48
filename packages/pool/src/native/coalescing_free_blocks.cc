#include "coalescing_free_blocks.h"

#include <algorithm>
#include <iterator>

namespace rmmjs {
namespace pool {
namespace {

// Spare tree nodes kept for reuse; beyond this they go back to the heap.
constexpr size_t kMaxSpareNodes = 1024;

}  // namespace

CoalescingFreeBlocks::CoalescingFreeBlocks() {
  // Recycling a node then never allocates, so no operation fails half-way for want of host memory.
  spare_address_nodes_.reserve(kMaxSpareNodes);
  spare_size_nodes_.reserve(kMaxSpareNodes);
}

const UpstreamBlock* UpstreamBlocks::Find(uintptr_t ptr) const {
  auto after = std::upper_bound(blocks_.begin(), blocks_.end(), ptr,
                                [](uintptr_t p, const UpstreamBlock& block) { return p < block.begin; });
  if (after == blocks_.begin()) return nullptr;
  const UpstreamBlock& block = *std::prev(after);
  return ptr < block.end() ? &block : nullptr;
}

void UpstreamBlocks::Add(UpstreamBlock block) {
  auto at = std::lower_bound(blocks_.begin(), blocks_.end(), block.begin,
                             [](const UpstreamBlock& b, uintptr_t p) { return b.begin < p; });
  blocks_.insert(at, block);
}

void UpstreamBlocks::Remove(uintptr_t begin) {
  auto at = std::lower_bound(blocks_.begin(), blocks_.end(), begin,
                             [](const UpstreamBlock& b, uintptr_t p) { return b.begin < p; });
  if (at != blocks_.end() && at->begin == begin) blocks_.erase(at);
}

uintptr_t CoalescingFreeBlocks::TakeBestFit(StreamFreeList& list, size_t size) {
  auto fit = list.by_size.lower_bound(BySize::Key{size, 0});
  if (fit == list.by_size.end()) return 0;
  const uintptr_t address = fit->address;
  const size_t found = fit->size;
  const AddressSet::iterator block = fit->block;
  list.free_bytes -= size;
  if (found == size) {
    Recycle(list.by_size.extract(fit));
    Recycle(by_address_.extract(block));
    return address;
  }
  // Hand out the front of the block; the rest stays free (same place in address order).
  Rekey(list, block, found - size, address + size);
  return address;
}

size_t CoalescingFreeBlocks::BestFitSize(const StreamFreeList& list, size_t size) {
  auto fit = list.by_size.lower_bound(BySize::Key{size, 0});
  return fit == list.by_size.end() ? 0 : fit->size;
}

bool CoalescingFreeBlocks::Overlaps(uintptr_t ptr, size_t size) const {
  auto next = by_address_.lower_bound(ptr);  // the first free block at or after ptr
  if (next != by_address_.end() && next->address < ptr + size) return true;
  return next != by_address_.begin() && std::prev(next)->address + std::prev(next)->size > ptr;
}

bool CoalescingFreeBlocks::Insert(StreamFreeList& list, uintptr_t ptr, size_t size, const UpstreamBlock& upstream) {
  const uintptr_t end = ptr + size;
  auto next = by_address_.lower_bound(ptr);
  if (next != by_address_.end() && next->address < end) return false;
  auto prev = next == by_address_.begin() ? by_address_.end() : std::prev(next);
  if (prev != by_address_.end() && prev->address + prev->size > ptr) return false;

  const bool merge_prev =
      prev != by_address_.end() && prev->list == &list && prev->address + prev->size == ptr && ptr != upstream.begin;
  const bool merge_next =
      next != by_address_.end() && next->list == &list && next->address == end && end != upstream.end();
  if (merge_prev && merge_next) {
    const size_t merged = prev->size + size + next->size;
    Recycle(list.by_size.extract(next->entry));
    Recycle(by_address_.extract(next));
    Rekey(list, prev, merged, prev->address);
  } else if (merge_prev) {
    Rekey(list, prev, prev->size + size, prev->address);
  } else if (merge_next) {
    Rekey(list, next, next->size + size, ptr);  // ptr keeps the block's place in address order
  } else {
    Add(list, next, ptr, size);
  }
  list.free_bytes += size;
  return true;
}

void CoalescingFreeBlocks::MoveAll(StreamFreeList& from, StreamFreeList& to, const UpstreamBlocks& upstream) {
  if (&from == &to) return;
  // Each block's nodes move as they are (no allocation), then it merges with its neighbours on to.
  while (!from.by_size.empty()) {
    SizeSet::node_type node = from.by_size.extract(from.by_size.begin());
    const AddressSet::iterator block = node.value().block;
    from.free_bytes -= block->size;
    to.free_bytes += block->size;
    block->list = &to;
    block->entry = to.by_size.insert(std::move(node)).position;
    const UpstreamBlock& within = *upstream.Find(block->address);
    const auto next = std::next(block);
    if (next != by_address_.end() && next->list == &to && next->address == block->address + block->size &&
        next->address != within.end()) {
      Absorb(to, block, next);
    }
    if (block != by_address_.begin()) {
      const auto prev = std::prev(block);
      if (prev->list == &to && prev->address + prev->size == block->address && block->address != within.begin) {
        Absorb(to, prev, block);
      }
    }
  }
}

void CoalescingFreeBlocks::Absorb(StreamFreeList& list, AddressSet::iterator lower, AddressSet::iterator upper) {
  const size_t size = lower->size + upper->size;
  Recycle(list.by_size.extract(upper->entry));
  Recycle(by_address_.extract(upper));
  Rekey(list, lower, size, lower->address);
}

bool CoalescingFreeBlocks::IsWhollyFree(const UpstreamBlock& upstream, std::vector<StreamFreeList*>* lists) const {
  std::vector<StreamFreeList*> found;
  uintptr_t covered = upstream.begin;
  // Stop at the block's end: the next upstream block can start right there (cuMemAlloc hands out
  // adjacent small blocks) and its free blocks are not this one's.
  for (auto at = by_address_.find(upstream.begin);
       at != by_address_.end() && at->address == covered && covered < upstream.end(); ++at) {
    covered += at->size;
    if (std::find(found.begin(), found.end(), at->list) == found.end()) found.push_back(at->list);
  }
  if (covered != upstream.end()) return false;
  for (StreamFreeList* list : found) {
    if (std::find(lists->begin(), lists->end(), list) == lists->end()) lists->push_back(list);
  }
  return true;
}

void CoalescingFreeBlocks::RemoveAllIn(const UpstreamBlock& upstream) {
  auto at = by_address_.lower_bound(upstream.begin);
  while (at != by_address_.end() && at->address < upstream.end()) Erase(at++);
}

void CoalescingFreeBlocks::Rekey(StreamFreeList& list, AddressSet::iterator block, size_t size, uintptr_t address) {
  block->size = size;
  block->address = address;
  const SizeSet::iterator entry = block->entry;
  const BySize::Key key{size, address};
  auto next = std::next(entry);
  const bool before_next = next == list.by_size.end() || key < BySize::KeyOf(*next);
  const bool after_prev = entry == list.by_size.begin() || BySize::KeyOf(*std::prev(entry)) < key;
  if (before_next && after_prev) {
    entry->size = size;
    entry->address = address;
    return;
  }
  SizeSet::node_type node = list.by_size.extract(entry);
  node.value().size = size;
  node.value().address = address;
  block->entry = list.by_size.insert(std::move(node)).position;
}

void CoalescingFreeBlocks::Add(StreamFreeList& list, AddressSet::const_iterator hint, uintptr_t address, size_t size) {
  AddressSet::iterator block;
  if (spare_address_nodes_.empty()) {
    block = by_address_.emplace_hint(hint, FreeBlock{address, size, &list, {}});
  } else {
    AddressSet::node_type node = std::move(spare_address_nodes_.back());
    spare_address_nodes_.pop_back();
    node.value() = FreeBlock{address, size, &list, {}};
    block = by_address_.insert(hint, std::move(node));
  }
  if (spare_size_nodes_.empty()) {
    try {
      block->entry = list.by_size.insert(SizeEntry{size, address, block}).first;
    } catch (...) {
      by_address_.erase(block);  // out of host memory: nothing changes
      throw;
    }
  } else {
    SizeSet::node_type node = std::move(spare_size_nodes_.back());
    spare_size_nodes_.pop_back();
    node.value() = SizeEntry{size, address, block};
    block->entry = list.by_size.insert(std::move(node)).position;
  }
}

void CoalescingFreeBlocks::Erase(AddressSet::iterator block) {
  StreamFreeList& list = *block->list;
  list.free_bytes -= block->size;
  Recycle(list.by_size.extract(block->entry));
  Recycle(by_address_.extract(block));
}

void CoalescingFreeBlocks::Recycle(SizeSet::node_type node) {
  if (!node.empty() && spare_size_nodes_.size() < kMaxSpareNodes) spare_size_nodes_.push_back(std::move(node));
}

void CoalescingFreeBlocks::Recycle(AddressSet::node_type node) {
  if (!node.empty() && spare_address_nodes_.size() < kMaxSpareNodes) spare_address_nodes_.push_back(std::move(node));
}

}  // namespace pool
}  // namespace rmmjs
