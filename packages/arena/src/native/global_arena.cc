#include "global_arena.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "rmmjs/format.hpp"
#include "rmmjs/status.hpp"

namespace rmmjs::arena {
namespace {

std::string Pointer(const void* ptr) {
  char text[32];
  std::snprintf(text, sizeof(text), "%p", ptr);
  return text;
}

}  // namespace

void GlobalArena::Initialize(char* base, std::size_t size) {
  base_ = base;
  size_ = size;
  superblocks_.AddEmpty(base, size);
}

Superblock* GlobalArena::Acquire(std::size_t size, SuperblockSet& arena, FreedOn* freed_on) {
  BiasedLock::Guard lock(lock_);
  Superblock* superblock = superblocks_.BestFitSuperblock(size);
  if (superblock == nullptr) return nullptr;
  if (SuperblockSet::IsEmpty(superblock) && superblock->size >= 2 * kMinimumSuperblockSize) {
    superblock = superblocks_.SplitEmpty(superblock, kMinimumSuperblockSize);
  }
  *freed_on = std::move(superblock->freed_on);
  superblock->freed_on.Clear();
  superblocks_.MoveTo(superblock, arena);
  moves_.fetch_add(1, std::memory_order_release);
  return superblock;
}

void GlobalArena::GiveBack(Superblock* superblock, SuperblockSet& arena, FreedOn freed_on) {
  BiasedLock::Guard lock(lock_);
  superblock->freed_on = std::move(freed_on);
  arena.MoveTo(superblock, superblocks_);
  if (SuperblockSet::IsEmpty(superblock)) superblocks_.CoalesceEmpty(superblock);
  moves_.fetch_add(1, std::memory_order_release);
}

void GlobalArena::Release(SuperblockSet& arena, const FreedOn& freed_on) {
  BiasedLock::Guard lock(lock_);
  while (!arena.empty()) {
    Superblock* superblock = arena.first();
    superblock->freed_on.Merge(freed_on);
    arena.MoveTo(superblock, superblocks_);
    if (SuperblockSet::IsEmpty(superblock)) superblocks_.CoalesceEmpty(superblock);
  }
  moves_.fetch_add(1, std::memory_order_release);
}

Block* GlobalArena::Allocate(std::size_t size, const StreamKey& taker, FreedOn* freed_on) {
  BiasedLock::Guard lock(lock_);
  Block* block = superblocks_.AllocateSplitting(size);
  if (block == nullptr) return nullptr;
  Superblock* holder = block->superblock;
  // Frees on the taker's own stream are in its stream order already (and copying the list would
  // cost a reference count per event).
  if (holder->freed_on.OnlyOn(taker)) return block;
  if (holder->start == block->start && holder->size == size) {
    // The whole superblock: once the taker's stream is ordered after these frees, its own free
    // of it is all that a later taker needs to wait for.
    *freed_on = std::move(holder->freed_on);
    holder->freed_on.Clear();
  } else {
    *freed_on = holder->freed_on;
  }
  return block;
}

FreeResult GlobalArena::Free(Block* block, const FreedOn& freed_on) {
  BiasedLock::Guard lock(lock_);
  return superblocks_.FreeCoalescing(block, freed_on);
}

FreeResult GlobalArena::Check(const Block* block) {
  BiasedLock::Guard lock(lock_);
  return superblocks_.Check(block);
}

FreedOn GlobalArena::FreedOnAll() {
  BiasedLock::Guard lock(lock_);
  FreedOn all;
  for (Superblock* superblock = superblocks_.first(); superblock != nullptr; superblock = superblock->next_in_set) {
    all.Merge(superblock->freed_on);
  }
  return all;
}

GlobalArena::Summary GlobalArena::Summarize() {
  BiasedLock::Guard lock(lock_);
  Summary summary{superblocks_.count(), 0, 0};
  for (Superblock* superblock = superblocks_.first(); superblock != nullptr; superblock = superblock->next_in_set) {
    SuperblockStats stats = SuperblockSet::Stats(superblock);
    summary.free_bytes += stats.total_free;
    if (stats.max_free > summary.largest_free_block) summary.largest_free_block = stats.max_free;
  }
  return summary;
}

void GlobalArena::DumpMemoryLog() {
  BiasedLock::Guard lock(lock_);
  LogAt(RMMJS_LOG_INFO, "  Arena size: " + FormatBytes(size_));
  LogAt(RMMJS_LOG_INFO, "  # superblocks: " + std::to_string(superblocks_.count()));
  if (superblocks_.empty()) return;
  std::vector<const Superblock*> in_order;
  in_order.reserve(superblocks_.count());
  for (Superblock* superblock = superblocks_.first(); superblock != nullptr; superblock = superblock->next_in_set) {
    in_order.push_back(superblock);
  }
  std::sort(in_order.begin(), in_order.end(), [](auto* a, auto* b) { return a->start < b->start; });
  std::size_t total_size = 0;
  std::size_t total_free = 0;
  std::size_t max_free = 0;
  for (const Superblock* superblock : in_order) {
    SuperblockStats stats = SuperblockSet::Stats(superblock);
    total_size += superblock->size;
    total_free += stats.total_free;
    if (stats.max_free > max_free) max_free = stats.max_free;
  }
  // RMM divides by zero when nothing is free (and prints nan); this prints 0.00 then.
  double fragmentation = total_free == 0 ? 0.0 : (1 - max_free / static_cast<double>(total_free)) * 100;
  char percent[32];
  std::snprintf(percent, sizeof(percent), "%0.2f", fragmentation);
  LogAt(RMMJS_LOG_DEBUG, "  Total size of superblocks: " + FormatBytes(total_size));
  LogAt(RMMJS_LOG_INFO, "  Total free memory: " + FormatBytes(total_free));
  LogAt(RMMJS_LOG_INFO, "  Largest block of free memory: " + FormatBytes(max_free));
  LogAt(RMMJS_LOG_INFO, std::string("  Fragmentation: ") + percent);
  if (!CoreApi()->should_log(RMMJS_LOG_DEBUG)) return;
  std::size_t index = 0;
  char* previous_end = nullptr;
  for (const Superblock* superblock : in_order) {
    SuperblockStats stats = SuperblockSet::Stats(superblock);
    char* start = superblock->start;
    char* end = start + superblock->size;
    if (previous_end == nullptr) previous_end = start;
    LogAt(RMMJS_LOG_DEBUG, "    Superblock " + std::to_string(index++) + ": start=" + Pointer(start) +
                               ", end=" + Pointer(end) + ", size=" + FormatBytes(superblock->size) +
                               ", empty=" + (SuperblockSet::IsEmpty(superblock) ? "T" : "F") + ", # free blocks=" +
                               std::to_string(stats.free_blocks) + ", max free=" + FormatBytes(stats.max_free) +
                               ", gap=" + FormatBytes(static_cast<std::size_t>(start - previous_end)));
    previous_end = end;
  }
}

}  // namespace rmmjs::arena
