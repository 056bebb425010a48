// RMM's pool_memory_resource: a coalescing best-fit suballocator over blocks taken from an
// upstream resource, on core's stream-ordered free lists (rmmjs/stream_ordered_resource.hpp).
// PoolBlocks is the policy: what a free block is, how a request is cut from one, and how the pool
// grows (RMM's try_to_expand).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "coalescing_free_blocks.h"
#include "rmmjs/abi.h"
#include "rmmjs/format.hpp"
#include "rmmjs/pointer_table.hpp"
#include "rmmjs/resource.hpp"
#include "rmmjs/stream_ordered_resource.hpp"

namespace rmmjs {

class PoolBlocks {
 public:
  static constexpr const char* kTypeName = "PoolMemoryResource";
  using FreeList = pool::StreamFreeList;
  using Growth = stream_ordered::Growth<FreeList>;

  // Sizes as the user gave them (no maximum: the pool grows without limit); Validate first.
  PoolBlocks(ResourceRef upstream, size_t initial_pool_size, std::optional<size_t> maximum_pool_size);

  // RMM's configuration checks of the sizes given (ERR_RMM_LOGIC with RMM's sentences).
  static rmmjs_status Validate(std::optional<size_t> initial_pool_size, std::optional<size_t> maximum_pool_size);
  // Half the free memory of device (RMM's default), or a fixed size in host mode; at most maximum.
  static rmmjs_status DefaultInitialPoolSize(int32_t device, std::optional<size_t> maximum_pool_size, size_t* out);

  rmmjs_resource* Upstream() const { return upstream_.get(); }
  // Bytes currently taken from upstream.
  size_t pool_size() const { return pool_size_; }

  // The policy of StreamOrderedResource.
  rmmjs_status Init(FreeList& legacy);
  rmmjs_status BlockSize(size_t bytes, size_t* size) const {
    if (bytes > SIZE_MAX - kAlignment) return Exceeded(bytes, "the size cannot be aligned to 256 bytes");
    *size = AlignUp(bytes, kAlignment);
    return RMMJS_OK;
  }
  uintptr_t Take(FreeList& list, size_t size) {
    const uintptr_t ptr = free_blocks_.TakeBestFit(list, size);
    if (ptr != 0) Remember(ptr, size);
    return ptr;
  }
  size_t Fit(const FreeList& list, size_t size) const { return pool::CoalescingFreeBlocks::BestFitSize(list, size); }
  bool Empty(const FreeList& list) const { return list.empty(); }
  size_t FreeBytes(const FreeList& list) const { return list.free_bytes; }
  void MoveAll(FreeList& from, FreeList& to) { free_blocks_.MoveAll(from, to, upstream_blocks_); }
  rmmjs_status Free(FreeList& list, uintptr_t ptr, size_t bytes) {
    const size_t size = bytes > SIZE_MAX - kAlignment ? 0 : AlignUp(bytes, kAlignment);
    const pool::UpstreamBlock* upstream = upstream_blocks_.Find(ptr);
    if (upstream == nullptr || size == 0 || (ptr - upstream->begin) % kAlignment != 0 || size > upstream->end() - ptr) {
      return NotHandedOut(ptr, bytes, "not memory this pool handed out");
    }
    if (remembering_.load(std::memory_order_relaxed)) {
      // Only a block as it was handed out: a pointer inside one, or another size, would put memory
      // still in use on a free list (and hand it out twice).
      size_t handed_out = 0;
      if (!handed_out_.Take(AsPointer(ptr), &handed_out)) {
        return NotHandedOut(ptr, bytes,
                            free_blocks_.Overlaps(ptr, size) ? kAlreadyFree : "not memory this pool handed out");
      }
      if (handed_out != size) {
        handed_out_.Insert(AsPointer(ptr), handed_out);  // back into the slot it just left: no allocation
        return NotHandedOut(ptr, bytes, kAlreadyFree);
      }
    }
    if (!free_blocks_.Insert(list, ptr, size, *upstream)) return NotHandedOut(ptr, bytes, kAlreadyFree);
    return RMMJS_OK;
  }
  rmmjs_status Grow(Growth& growth, FreeList& own, rmmjs_stream stream, size_t size, uintptr_t* out);
  void Release();

  // The per-thread caches' part of the policy (thread-safe, without the lock).
  bool TakeHandedOut(uintptr_t ptr, size_t bytes, size_t* size) {
    if (!remembering_.load(std::memory_order_relaxed) || bytes > SIZE_MAX - kAlignment) return false;
    size_t handed_out = 0;
    if (!handed_out_.Take(AsPointer(ptr), &handed_out)) return false;
    if (handed_out != AlignUp(bytes, kAlignment)) {
      Remember(ptr, handed_out);  // back as it was (into the slot it just left); Free says why
      return false;
    }
    *size = handed_out;
    return true;
  }
  // Records a block handed out. Out of host memory for the table, the pool stops checking frees
  // against it rather than failing an allocation that has its memory.
  void Remember(uintptr_t ptr, size_t size) noexcept;
  // Under the lock.
  void InsertFree(FreeList& list, uintptr_t ptr, size_t size) {
    // A block handed out keeps its upstream block from going back: it is there.
    free_blocks_.Insert(list, ptr, size, *upstream_blocks_.Find(ptr));
  }

 private:
  size_t SizeToGrow(size_t size) const;
  bool TakeWhollyFreeUpstreamBlocks(size_t size, std::vector<pool::UpstreamBlock>* blocks,
                                    std::vector<FreeList*>* lists);
  rmmjs_status ReturnToUpstream(const std::vector<pool::UpstreamBlock>& blocks, rmmjs_stream stream);
  // Takes `bytes` from upstream on stream, halving the attempt on out-of-memory down to `size`.
  rmmjs_status AllocateUpstream(size_t size, size_t* bytes, rmmjs_stream stream, void** out);
  [[gnu::cold]] static rmmjs_status Exceeded(size_t size, const std::string& reason);
  [[gnu::cold]] static rmmjs_status GrowthFailed(rmmjs_stream stream, size_t size, const std::string& reason);
  [[gnu::cold]] static rmmjs_status NotHandedOut(uintptr_t ptr, size_t bytes, const char* why);

  static const void* AsPointer(uintptr_t ptr) { return reinterpret_cast<const void*>(ptr); }

  static constexpr size_t kAlignment = RMMJS_ALLOCATION_ALIGNMENT;
  static constexpr const char* kAlreadyFree = "the range is already free (freed twice, or the wrong size)";

  ResourceRef upstream_;
  size_t initial_pool_size_;
  std::optional<size_t> maximum_pool_size_;

  size_t pool_size_ = 0;  // committed upstream bytes
  size_t growing_ = 0;    // bytes being requested from upstream right now (outside the lock)
  pool::UpstreamBlocks upstream_blocks_;
  pool::CoalescingFreeBlocks free_blocks_;
  // Every block handed out, by address: its size. Sharded: threads with caches check their frees
  // here without the pool's lock.
  ShardedPointerTable<size_t> handed_out_;
  std::atomic<bool> remembering_{true};
};

using PoolMemoryResource = StreamOrderedResource<PoolBlocks>;

}  // namespace rmmjs
