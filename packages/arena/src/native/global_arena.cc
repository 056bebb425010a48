#include "global_arena.h"

#include <cstdio>
#include <string>

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

char* GlobalArena::Acquire(std::size_t size, SuperblockSet& arena, FreedOn* freed_on) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto superblock = superblocks_.BestFitSuperblock(size);
  if (superblock == superblocks_.end()) return nullptr;
  if (superblocks_.IsEmpty(superblock) && superblock->second.size >= 2 * kMinimumSuperblockSize) {
    superblock = superblocks_.SplitEmpty(superblock, kMinimumSuperblockSize);
  }
  *freed_on = std::move(superblock->second.freed_on);
  superblock->second.freed_on.Clear();
  superblocks_.MoveTo(superblock, arena);
  moves_.fetch_add(1, std::memory_order_release);
  return superblock->first;
}

void GlobalArena::GiveBack(char* start, SuperblockSet& arena, FreedOn freed_on) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto superblock = arena.Find(start);
  superblock->second.freed_on = std::move(freed_on);
  superblock = arena.MoveTo(superblock, superblocks_);
  if (superblocks_.IsEmpty(superblock)) superblocks_.CoalesceEmpty(superblock);
  moves_.fetch_add(1, std::memory_order_release);
}

void GlobalArena::Release(SuperblockSet& arena, const FreedOn& freed_on) {
  std::lock_guard<std::mutex> lock(mutex_);
  while (!arena.empty()) {
    arena.begin()->second.freed_on.Merge(freed_on);
    auto superblock = arena.MoveTo(arena.begin(), superblocks_);
    if (superblocks_.IsEmpty(superblock)) superblocks_.CoalesceEmpty(superblock);
  }
  moves_.fetch_add(1, std::memory_order_release);
}

char* GlobalArena::Allocate(std::size_t size, FreedOn* freed_on) {
  std::lock_guard<std::mutex> lock(mutex_);
  SuperblockSet::Iterator holder;
  char* ptr = superblocks_.AllocateSplitting(size, &holder);
  if (ptr == nullptr) return nullptr;
  if (holder->first == ptr && holder->second.size == size) {
    // The whole superblock: once the taker's stream is ordered after these frees, its own free
    // of it is all that a later taker needs to wait for.
    *freed_on = std::move(holder->second.freed_on);
    holder->second.freed_on.Clear();
  } else {
    *freed_on = holder->second.freed_on;
  }
  return ptr;
}

FreeResult GlobalArena::Free(char* ptr, std::size_t size, const FreedOn& freed_on) {
  std::lock_guard<std::mutex> lock(mutex_);
  SuperblockSet::Iterator holder;
  FreeResult result = superblocks_.Free(ptr, size, &holder, &freed_on);
  if (result == FreeResult::kFreed && superblocks_.IsEmpty(holder)) superblocks_.CoalesceEmpty(holder);
  return result;
}

FreeResult GlobalArena::Check(char* ptr, std::size_t size) {
  std::lock_guard<std::mutex> lock(mutex_);
  return superblocks_.Check(ptr, size);
}

FreedOn GlobalArena::FreedOnAll() {
  std::lock_guard<std::mutex> lock(mutex_);
  FreedOn all;
  for (auto superblock = superblocks_.begin(); superblock != superblocks_.end(); ++superblock) {
    all.Merge(superblock->second.freed_on);
  }
  return all;
}

GlobalArena::Summary GlobalArena::Summarize() {
  std::lock_guard<std::mutex> lock(mutex_);
  Summary summary{superblocks_.count(), 0, 0};
  for (auto superblock = superblocks_.begin(); superblock != superblocks_.end(); ++superblock) {
    SuperblockStats stats = superblocks_.Stats(superblock);
    summary.free_bytes += stats.total_free;
    if (stats.max_free > summary.largest_free_block) summary.largest_free_block = stats.max_free;
  }
  return summary;
}

void GlobalArena::DumpMemoryLog() {
  std::lock_guard<std::mutex> lock(mutex_);
  LogAt(RMMJS_LOG_INFO, "  Arena size: " + FormatBytes(size_));
  LogAt(RMMJS_LOG_INFO, "  # superblocks: " + std::to_string(superblocks_.count()));
  if (superblocks_.empty()) return;
  std::size_t total_size = 0;
  std::size_t total_free = 0;
  std::size_t max_free = 0;
  for (auto superblock = superblocks_.begin(); superblock != superblocks_.end(); ++superblock) {
    SuperblockStats stats = superblocks_.Stats(superblock);
    total_size += superblock->second.size;
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
  for (auto superblock = superblocks_.begin(); superblock != superblocks_.end(); ++superblock, ++index) {
    SuperblockStats stats = superblocks_.Stats(superblock);
    char* start = superblock->first;
    char* end = start + superblock->second.size;
    if (previous_end == nullptr) previous_end = start;
    LogAt(RMMJS_LOG_DEBUG, "    Superblock " + std::to_string(index) + ": start=" + Pointer(start) +
                               ", end=" + Pointer(end) + ", size=" + FormatBytes(superblock->second.size) +
                               ", empty=" + (superblocks_.IsEmpty(superblock) ? "T" : "F") + ", # free blocks=" +
                               std::to_string(stats.free_blocks) + ", max free=" + FormatBytes(stats.max_free) +
                               ", gap=" + FormatBytes(static_cast<std::size_t>(start - previous_end)));
    previous_end = end;
  }
}

}  // namespace rmmjs::arena
