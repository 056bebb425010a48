#include "pool_memory_resource.h"

#include <unistd.h>

#include <algorithm>

#include "rmmjs/format.hpp"
#include "rmmjs/status.hpp"

namespace rmmjs {

namespace {

constexpr rmmjs_stream kDefaultStream = 0;
constexpr size_t kHostDefaultPoolSize = size_t{256} << 20;

}  // namespace

PoolBlocks::PoolBlocks(ResourceRef upstream, std::optional<size_t> initial_pool_size,
                       std::optional<size_t> maximum_pool_size)
    : upstream_(std::move(upstream)), initial_pool_size_(initial_pool_size), maximum_pool_size_(maximum_pool_size) {}

rmmjs_status PoolBlocks::Validate() const {
  if (initial_pool_size_.has_value() && *initial_pool_size_ % kAlignment != 0) {
    return Fail(RMMJS_ERR_LOGIC, "Error, Initial pool size required to be a multiple of 256 bytes");
  }
  if (maximum_pool_size_.has_value() && *maximum_pool_size_ % kAlignment != 0) {
    return Fail(RMMJS_ERR_LOGIC, "Error, Maximum pool size required to be a multiple of 256 bytes");
  }
  if (initial_pool_size_.has_value() && maximum_pool_size_.has_value() && *initial_pool_size_ > *maximum_pool_size_) {
    return Fail(RMMJS_ERR_LOGIC, "Initial pool size exceeds the maximum pool size!");
  }
  return RMMJS_OK;
}

rmmjs_status PoolBlocks::Init(FreeList& legacy) {
  RMMJS_TRY(Validate());
  size_t initial_pool_size = 0;
  RMMJS_TRY(InitialPoolSize(&initial_pool_size));
  if (initial_pool_size == 0) return RMMJS_OK;
  size_t bytes = initial_pool_size;
  void* block = nullptr;
  RMMJS_TRY(AllocateUpstream(initial_pool_size, &bytes, kDefaultStream, &block));
  try {
    blocks_.AddUpstream(reinterpret_cast<uintptr_t>(block), bytes, 0, legacy);
  } catch (const std::bad_alloc&) {
    CoreApi()->deallocate(upstream_.get(), block, bytes, kDefaultStream);
    throw;
  }
  pool_size_ = bytes;
  return RMMJS_OK;
}

rmmjs_status PoolBlocks::InitialPoolSize(size_t* out) const {
  if (initial_pool_size_.has_value()) {
    *out = *initial_pool_size_;
    return RMMJS_OK;
  }
  size_t size = kHostDefaultPoolSize;
  if (CoreApi()->cuda_available()) {
    size_t free_bytes = 0;
    size_t total_bytes = 0;
    RMMJS_TRY(CoreApi()->mem_get_info(upstream_.get()->device, &free_bytes, &total_bytes));
    size = AlignDown(free_bytes / 2, kAlignment);
  } else {
    // Host mode: 256 MiB, or half the host's memory where that is less.
    long pages = sysconf(_SC_PHYS_PAGES);
    long page_size = sysconf(_SC_PAGE_SIZE);
    if (pages > 0 && page_size > 0) {
      size = std::min(size, AlignDown(static_cast<size_t>(pages) * static_cast<size_t>(page_size) / 2, kAlignment));
    }
  }
  *out = maximum_pool_size_.has_value() ? std::min(size, *maximum_pool_size_) : size;
  return RMMJS_OK;
}

size_t PoolBlocks::SizeToGrow(size_t size) const {
  if (!maximum_pool_size_.has_value()) return std::max(size, pool_size_);
  const size_t maximum = *maximum_pool_size_;
  const size_t used = pool_size_ + growing_;
  const size_t remaining = maximum > used ? maximum - used : 0;
  return size <= remaining ? std::max(size, AlignDown(remaining / 2, kAlignment)) : 0;
}

// RMM's try_to_expand. The upstream calls run without the lock (the bytes are reserved in growing_
// meanwhile).
rmmjs_status PoolBlocks::Grow(Growth& growth, FreeList& own, rmmjs_stream stream, size_t size, Block** out) {
  std::vector<Range> released;
  std::vector<FreeList*> released_from;
  size_t try_size = SizeToGrow(size);
  if (try_size == 0 && TakeWhollyFreeUpstreamBlocks(size, &released, &released_from)) try_size = SizeToGrow(size);
  if (try_size == 0) {
    return GrowthFailed(stream, size,
                        "Not enough room to grow, current/max/try size = " + FormatBytes(pool_size_) + ", " +
                            FormatBytes(maximum_pool_size_.value_or(SIZE_MAX)) + ", " + FormatBytes(size));
  }
  const std::vector<stream_ordered::PendingWork> pending = growth.WorkOn(released_from);
  const size_t reserved = try_size;
  growing_ += reserved;
  growth.Unlock();
  // The released blocks are on no list any more: only the work queued before their frees is waited for.
  rmmjs_status status = growth.WaitFor(pending);
  if (status == RMMJS_OK) status = ReturnToUpstream(released, stream);
  void* block = nullptr;
  if (status == RMMJS_OK) status = AllocateUpstream(size, &try_size, stream, &block);
  growth.Relock();
  growing_ -= reserved;
  RMMJS_TRY(status);
  Block* taken = nullptr;
  try {
    taken = blocks_.AddUpstream(reinterpret_cast<uintptr_t>(block), try_size, size, own);
  } catch (const std::bad_alloc&) {
    growth.Unlock();
    CoreApi()->deallocate(upstream_.get(), block, try_size, stream);
    growth.Relock();
    throw;
  }
  pool_size_ += try_size;
  *out = taken;
  return RMMJS_OK;
}

// Takes *bytes (at least size) from upstream. Only running out of memory halves the attempt (a
// multiple of 256, down to size) and becomes "Maximum pool size exceeded"; any other failure (a
// CUDA error, a callback's error, a call from the wrong thread) is returned as the upstream set it
// (RMM's try_to_expand treats every exception as running out of memory).
rmmjs_status PoolBlocks::AllocateUpstream(size_t size, size_t* bytes, rmmjs_stream stream, void** out) {
  for (;;) {
    LogAt(RMMJS_LOG_DEBUG, "[A][Stream " + FormatStream(stream) + "][Upstream " + std::to_string(*bytes) + "B]");
    const rmmjs_status status = CoreApi()->allocate(upstream_.get(), *bytes, stream, out);
    if (status == RMMJS_OK) return RMMJS_OK;
    if (status != RMMJS_ERR_OUT_OF_MEMORY) return status;
    if (*bytes == size) return GrowthFailed(stream, size, LastErrorMessage());
    *bytes = std::max(size, AlignDown(*bytes / 2, kAlignment));
  }
}

// Beyond RMM (rapidsai/rmm#1957): when the maximum leaves no room to grow, upstream blocks that
// are wholly free are given back, if that makes room, and the pool grows by one larger block.
bool PoolBlocks::TakeWhollyFreeUpstreamBlocks(size_t size, std::vector<Range>* blocks, std::vector<FreeList*>* lists) {
  if (!maximum_pool_size_.has_value()) return false;
  const size_t maximum = *maximum_pool_size_;
  const size_t used = pool_size_ + growing_;
  if (size > maximum || used + size <= maximum) return false;
  const size_t needed = used + size - maximum;
  std::vector<const UpstreamBlock*> candidates;
  std::vector<FreeList*> ignored;
  for (const auto& block : blocks_.upstream_blocks()) {
    if (CoalescingBlocks::IsWhollyFree(*block, &ignored)) candidates.push_back(block.get());
  }
  // The smallest block that makes room on its own, else the largest blocks until there is room.
  std::sort(candidates.begin(), candidates.end(),
            [](const UpstreamBlock* a, const UpstreamBlock* b) { return a->size < b->size; });
  auto enough = std::find_if(candidates.begin(), candidates.end(),
                             [needed](const UpstreamBlock* block) { return block->size >= needed; });
  std::vector<const UpstreamBlock*> taken;
  if (enough != candidates.end()) {
    taken.push_back(*enough);
  } else {
    size_t found = 0;
    for (auto block = candidates.rbegin(); block != candidates.rend() && found < needed; ++block) {
      taken.push_back(*block);
      found += (*block)->size;
    }
    if (found < needed) return false;
  }
  blocks->reserve(taken.size());
  for (const UpstreamBlock* block : taken) CoalescingBlocks::IsWhollyFree(*block, lists);
  for (const UpstreamBlock* block : taken) {
    blocks->push_back({block->begin, block->size});
    pool_size_ -= block->size;
    blocks_.RemoveUpstream(block);
  }
  return true;
}

rmmjs_status PoolBlocks::ReturnToUpstream(const std::vector<Range>& blocks, rmmjs_stream stream) {
  for (const Range& block : blocks) {
    LogAt(RMMJS_LOG_DEBUG, "[D][Stream " + FormatStream(stream) + "][Upstream " + std::to_string(block.size) + "B]");
    RMMJS_TRY(CoreApi()->deallocate(upstream_.get(), reinterpret_cast<void*>(block.begin), block.size, stream));
  }
  return RMMJS_OK;
}

void PoolBlocks::Release() {
  for (const auto& block : blocks_.upstream_blocks()) {
    if (CoreApi()->deallocate(upstream_.get(), reinterpret_cast<void*>(block->begin), block->size, kDefaultStream) !=
        RMMJS_OK) {
      LogAt(RMMJS_LOG_ERROR, "PoolMemoryResource: returning memory upstream failed: " + LastErrorMessage());
    }
  }
}

void PoolBlocks::Track(Block* block) noexcept {
  try {
    handed_out_.Insert(AsPointer(block->start), block);
    // Written only when it changes: the records of blocks that threads reuse side by side may share
    // a cache line, which a store at every allocation would bounce between the threads.
    if (!block->tracked.load(std::memory_order_relaxed)) block->tracked.store(true, std::memory_order_relaxed);
  } catch (const std::bad_alloc&) {
    block->tracked.store(false, std::memory_order_relaxed);
    if (told_untracked_.exchange(true, std::memory_order_relaxed)) return;
    try {
      LogAt(RMMJS_LOG_ERROR, "PoolMemoryResource: out of host memory: some frees are found by a search (slower)");
    } catch (...) {  // no memory for the message either
    }
  }
}

rmmjs_status PoolBlocks::TakeBackUntracked(uintptr_t ptr, size_t bytes, size_t size, Block** out) {
  const UpstreamBlock* upstream = blocks_.FindUpstream(ptr);
  if (upstream != nullptr && size != 0 && size <= upstream->end() - ptr) {
    // A block handed out while the table had no room for it. One that is tracked but not in the
    // table is in a thread's cache: freed already.
    Block* block = CoalescingBlocks::BlockAt(*upstream, ptr);
    if (block != nullptr && block->list == nullptr && !block->tracked.load(std::memory_order_relaxed) &&
        block->size == size) {
      *out = block;
      return RMMJS_OK;
    }
  }
  return Refuse(ptr, bytes, size, nullptr);
}

rmmjs_status PoolBlocks::Refuse(uintptr_t ptr, size_t bytes, size_t size, const char* why) const {
  const UpstreamBlock* upstream = blocks_.FindUpstream(ptr);
  if (upstream == nullptr || size == 0 || (ptr - upstream->begin) % kAlignment != 0 || size > upstream->end() - ptr) {
    return NotHandedOut(ptr, bytes, "not memory this pool handed out");
  }
  if (why == nullptr) {
    why = CoalescingBlocks::Overlaps(*upstream, ptr, size) ? kAlreadyFree : "not memory this pool handed out";
  }
  return NotHandedOut(ptr, bytes, why);
}

rmmjs_status PoolBlocks::NotHandedOut(uintptr_t ptr, size_t bytes, const char* why) {
  return Fail(RMMJS_ERR_LOGIC, "PoolMemoryResource: cannot deallocate " + FormatHex(ptr) + " (" +
                                   std::to_string(bytes) + " bytes): " + why);
}

rmmjs_status PoolBlocks::Exceeded(size_t size, const std::string& reason) {
  return Fail(RMMJS_ERR_OUT_OF_MEMORY,
              "Maximum pool size exceeded (failed to allocate " + FormatBytes(size) + "): " + reason);
}

// RMM's try_to_expand failure: logged at error level, then OutOfMemoryError.
rmmjs_status PoolBlocks::GrowthFailed(rmmjs_stream stream, size_t size, const std::string& reason) {
  LogAt(RMMJS_LOG_ERROR, "[A][Stream " + FormatStream(stream) + "][Upstream " + std::to_string(size) +
                             "B][FAILURE maximum pool size exceeded: " + reason + "]");
  return Exceeded(size, reason);
}

}  // namespace rmmjs
