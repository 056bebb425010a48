#include "superblock_set.h"

#include <cstdint>
#include <iterator>

namespace rmmjs::arena {
void SuperblockSet::AddEmpty(char* start, std::size_t size) {
  superblocks_.emplace(start, Superblock{size, {}});
  InsertFree(start, size, free_by_address_.lower_bound(start));
}

char* SuperblockSet::Allocate(std::size_t size) {
  auto fit = free_by_size_.lower_bound({size, nullptr});
  if (fit == free_by_size_.end()) return nullptr;
  return TakeFront(fit, size);
}

SuperblockSet::Iterator SuperblockSet::BestFitSuperblock(std::size_t size) {
  auto fit = free_by_size_.lower_bound({size, nullptr});
  if (fit == free_by_size_.end()) return superblocks_.end();
  return Holder(fit->second, fit->first);
}

char* SuperblockSet::AllocateSplitting(std::size_t size, Iterator* holder) {
  auto fit = free_by_size_.lower_bound({size, nullptr});
  if (fit == free_by_size_.end()) return nullptr;
  auto superblock = superblocks_.find(fit->second);
  if (superblock != superblocks_.end() && superblock->second.size == fit->first &&
      fit->first >= size + kMinimumSuperblockSize) {
    SplitEmpty(superblock, size);
    fit = free_by_size_.find({size, superblock->first});
  }
  char* ptr = TakeFront(fit, size);
  if (holder != nullptr) *holder = Holder(ptr, size);
  return ptr;
}

char* SuperblockSet::TakeFront(FreeBySize::iterator by_size, std::size_t size) {
  const auto [block_size, start] = *by_size;
  auto by_address = free_by_address_.find(start);
  if (block_size == size) {
    EraseFree(by_address);
    return start;
  }
  // The remainder keeps both nodes, re-keyed.
  auto size_node = free_by_size_.extract(by_size);
  size_node.value() = {block_size - size, start + size};
  free_by_size_.insert(std::move(size_node));
  auto hint = std::next(by_address);
  auto address_node = free_by_address_.extract(by_address);
  address_node.key() = start + size;
  address_node.mapped() = block_size - size;
  free_by_address_.insert(hint, std::move(address_node));
  return start;
}

SuperblockSet::Iterator SuperblockSet::Holder(char* ptr, std::size_t size) {
  auto next = superblocks_.upper_bound(ptr);
  if (next == superblocks_.begin()) return superblocks_.end();
  auto holder = std::prev(next);
  auto offset = static_cast<std::uintptr_t>(ptr - holder->first);
  if (size > holder->second.size || offset > holder->second.size - size) return superblocks_.end();
  return holder;
}

FreeResult SuperblockSet::Free(char* ptr, std::size_t size, Iterator* holder_out, const FreedOn* freed_on) {
  Iterator holder = Holder(ptr, size);
  if (holder == superblocks_.end()) return FreeResult::kNotHere;
  if (holder_out != nullptr) *holder_out = holder;
  char* end = ptr + size;
  auto next = free_by_address_.lower_bound(ptr);
  auto previous = next == free_by_address_.begin() ? free_by_address_.end() : std::prev(next);
  if (next != free_by_address_.end() && next->first < end) return FreeResult::kNotAllocated;
  if (previous != free_by_address_.end() && previous->first + previous->second > ptr) {
    return FreeResult::kNotAllocated;
  }
  if (freed_on != nullptr) holder->second.freed_on.Merge(*freed_on);
  char* holder_end = holder->first + holder->second.size;
  bool merge_previous = previous != free_by_address_.end() && previous->first >= holder->first &&
                        previous->first + previous->second == ptr;
  bool merge_next = next != free_by_address_.end() && next->first == end && next->first < holder_end;
  if (merge_previous && merge_next) {
    std::size_t merged = previous->second + size + next->second;
    EraseFree(next);
    ResizeFree(previous, merged);
  } else if (merge_previous) {
    ResizeFree(previous, previous->second + size);
  } else if (merge_next) {
    std::size_t merged = size + next->second;
    auto hint = std::next(next);
    EraseFree(next);
    InsertFree(ptr, merged, hint);
  } else {
    InsertFree(ptr, size, next);
  }
  return FreeResult::kFreed;
}

FreeResult SuperblockSet::Check(char* ptr, std::size_t size) {
  if (Holder(ptr, size) == superblocks_.end()) return FreeResult::kNotHere;
  auto next = free_by_address_.lower_bound(ptr);
  if (next != free_by_address_.end() && next->first < ptr + size) return FreeResult::kNotAllocated;
  if (next != free_by_address_.begin()) {
    auto previous = std::prev(next);
    if (previous->first + previous->second > ptr) return FreeResult::kNotAllocated;
  }
  return FreeResult::kFreed;
}

bool SuperblockSet::IsEmpty(Iterator superblock) const {
  auto block = free_by_address_.find(superblock->first);
  return block != free_by_address_.end() && block->second == superblock->second.size;
}

SuperblockSet::Iterator SuperblockSet::SplitEmpty(Iterator superblock, std::size_t head_size) {
  char* start = superblock->first;
  std::size_t tail_size = superblock->second.size - head_size;
  superblocks_.emplace_hint(std::next(superblock), start + head_size,
                            Superblock{tail_size, superblock->second.freed_on});
  superblock->second.size = head_size;
  auto block = free_by_address_.find(start);
  ResizeFree(block, head_size);
  InsertFree(start + head_size, tail_size, std::next(block));
  return superblock;
}

SuperblockSet::Iterator SuperblockSet::CoalesceEmpty(Iterator superblock) {
  if (superblock != superblocks_.begin()) {
    auto previous = std::prev(superblock);
    if (previous->first + previous->second.size == superblock->first && IsEmpty(previous)) {
      previous->second.freed_on.Merge(superblock->second.freed_on);
      EraseFree(free_by_address_.find(superblock->first));
      previous->second.size += superblock->second.size;
      ResizeFree(free_by_address_.find(previous->first), previous->second.size);
      superblocks_.erase(superblock);
      superblock = previous;
    }
  }
  auto next = std::next(superblock);
  if (next != superblocks_.end() && superblock->first + superblock->second.size == next->first && IsEmpty(next)) {
    superblock->second.freed_on.Merge(next->second.freed_on);
    EraseFree(free_by_address_.find(next->first));
    superblock->second.size += next->second.size;
    ResizeFree(free_by_address_.find(superblock->first), superblock->second.size);
    superblocks_.erase(next);
  }
  return superblock;
}

SuperblockSet::Iterator SuperblockSet::MoveTo(Iterator superblock, SuperblockSet& other) {
  char* end = superblock->first + superblock->second.size;
  auto block = free_by_address_.lower_bound(superblock->first);
  while (block != free_by_address_.end() && block->first < end) {
    auto next = std::next(block);
    other.free_by_size_.insert(free_by_size_.extract({block->second, block->first}));
    other.free_by_address_.insert(free_by_address_.extract(block));
    block = next;
  }
  return other.superblocks_.insert(superblocks_.extract(superblock)).position;
}

SuperblockStats SuperblockSet::Stats(Iterator superblock) const {
  SuperblockStats stats;
  char* end = superblock->first + superblock->second.size;
  for (auto block = free_by_address_.lower_bound(superblock->first);
       block != free_by_address_.end() && block->first < end; ++block) {
    stats.free_blocks++;
    stats.total_free += block->second;
    if (block->second > stats.max_free) stats.max_free = block->second;
  }
  return stats;
}

void SuperblockSet::InsertFree(char* start, std::size_t size, FreeByAddress::iterator hint) {
  if (spare_address_nodes_.empty()) {
    free_by_address_.emplace_hint(hint, start, size);
  } else {
    auto node = std::move(spare_address_nodes_.back());
    spare_address_nodes_.pop_back();
    node.key() = start;
    node.mapped() = size;
    free_by_address_.insert(hint, std::move(node));
  }
  if (spare_size_nodes_.empty()) {
    free_by_size_.emplace(size, start);
  } else {
    auto node = std::move(spare_size_nodes_.back());
    spare_size_nodes_.pop_back();
    node.value() = {size, start};
    free_by_size_.insert(std::move(node));
  }
}

void SuperblockSet::EraseFree(FreeByAddress::iterator block) {
  auto size_node = free_by_size_.extract({block->second, block->first});
  auto address_node = free_by_address_.extract(block);
  if (spare_size_nodes_.size() < kMaxSpareNodes) spare_size_nodes_.push_back(std::move(size_node));
  if (spare_address_nodes_.size() < kMaxSpareNodes) spare_address_nodes_.push_back(std::move(address_node));
}

void SuperblockSet::ResizeFree(FreeByAddress::iterator block, std::size_t size) {
  auto size_node = free_by_size_.extract({block->second, block->first});
  size_node.value().first = size;
  free_by_size_.insert(std::move(size_node));
  block->second = size;
}

}  // namespace rmmjs::arena
