// RMM's pool_memory_resource: a coalescing best-fit suballocator over blocks taken from an
// upstream resource, on core's stream-ordered free lists (rmmjs/stream_ordered_resource.hpp) of
// coalescing blocks (rmmjs/coalescing_free_list.hpp). PoolBlocks is the policy: its sizes, a table
// of the blocks it handed out, and how the pool grows (RMM's try_to_expand).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rmmjs/abi.h"
#include "rmmjs/coalescing_free_list.hpp"
#include "rmmjs/format.hpp"
#include "rmmjs/pointer_table.hpp"
#include "rmmjs/resource.hpp"
#include "rmmjs/stream_ordered_resource.hpp"

namespace rmmjs {

class PoolBlocks {
 public:
  static constexpr const char* kTypeName = "PoolMemoryResource";
  using FreeList = CoalescingFreeList;
  using Block = coalescing::Block;
  using UpstreamBlock = coalescing::UpstreamBlock;
  using Growth = stream_ordered::Growth<FreeList>;

  // Sizes as the user gave them, each optional (Init checks them and picks the default initial
  // size; no maximum: the pool grows without limit).
  PoolBlocks(ResourceRef upstream, std::optional<size_t> initial_pool_size, std::optional<size_t> maximum_pool_size);

  rmmjs_resource* Upstream() const { return upstream_.get(); }
  // Bytes currently taken from upstream.
  size_t pool_size() const { return pool_size_; }

  // The policy of StreamOrderedResource.
  FreeList NewFreeList() { return FreeList(blocks_); }
  // RMM's checks of the sizes given (ERR_RMM_LOGIC with RMM's sentences), then the initial memory.
  rmmjs_status Init(FreeList& legacy);
  rmmjs_status BlockSize(size_t bytes, size_t* size) const {
    if (bytes > SIZE_MAX - kAlignment) return Exceeded(bytes, "the size cannot be aligned to 256 bytes");
    *size = AlignUp(bytes, kAlignment);
    return RMMJS_OK;
  }
  // Thread-safe (a thread with a cache hands out its blocks without the lock).
  uintptr_t HandOut(Block* block) noexcept {
    Track(block);
    return block->start;
  }
  rmmjs_status TakeBack(uintptr_t ptr, size_t bytes, Block** out) {
    const size_t size = bytes > SIZE_MAX - kAlignment ? 0 : AlignUp(bytes, kAlignment);
    Block* block = nullptr;
    if (handed_out_.Take(AsPointer(ptr), &block)) {
      // Only a block as it was handed out: another size would put memory still in use on a free
      // list (and hand it out twice).
      if (block->size == size) {
        *out = block;
        return RMMJS_OK;
      }
      handed_out_.Insert(AsPointer(ptr), block);  // back into the slot it just left: no allocation
      return Refuse(ptr, bytes, size, kAlreadyFree);
    }
    return TakeBackUntracked(ptr, bytes, size, out);
  }
  rmmjs_status Grow(Growth& growth, FreeList& own, rmmjs_stream stream, size_t size, Block** out);
  void Release();

  // The per-thread caches' part of the policy (thread-safe, without the lock). A cached block's
  // record travels with it.
  bool TakeHandedOut(uintptr_t ptr, size_t bytes, CachedBlock* cached) {
    if (bytes > SIZE_MAX - kAlignment) return false;
    Block* block = nullptr;
    if (!handed_out_.Take(AsPointer(ptr), &block)) return false;
    if (block->size != AlignUp(bytes, kAlignment)) {
      handed_out_.Insert(AsPointer(ptr), block);  // back as it was (into the slot it just left); TakeBack says why
      return false;
    }
    cached->ptr = ptr;
    cached->size = block->size;
    cached->record = block;
    return true;
  }

 private:
  struct Range {  // an upstream allocation going back
    uintptr_t begin;
    size_t size;
  };

  rmmjs_status Validate() const;  // RMM's configuration checks of the sizes given
  // The size given, else half the free memory of the device (RMM's default), or a fixed size in host
  // mode; at most the maximum.
  rmmjs_status InitialPoolSize(size_t* out) const;
  size_t SizeToGrow(size_t size) const;
  bool TakeWhollyFreeUpstreamBlocks(size_t size, std::vector<Range>* blocks, std::vector<FreeList*>* lists);
  rmmjs_status ReturnToUpstream(const std::vector<Range>& blocks, rmmjs_stream stream);
  // Takes `bytes` from upstream on stream, halving the attempt on out-of-memory down to `size`.
  rmmjs_status AllocateUpstream(size_t size, size_t* bytes, rmmjs_stream stream, void** out);
  [[gnu::cold]] static rmmjs_status Exceeded(size_t size, const std::string& reason);
  [[gnu::cold]] static rmmjs_status GrowthFailed(rmmjs_stream stream, size_t size, const std::string& reason);
  // Records a block handed out in the table, where frees find its record. Out of host memory for
  // the table, the block is handed out all the same: its free then finds the record by a walk.
  void Track(Block* block) noexcept;
  // The frees the table cannot answer: a block whose record is not in the table, or no block.
  [[gnu::cold]] rmmjs_status TakeBackUntracked(uintptr_t ptr, size_t bytes, size_t size, Block** out);
  // Why [ptr, ptr + size) cannot be freed: `why`, unless it is no memory this pool handed out.
  [[gnu::cold]] rmmjs_status Refuse(uintptr_t ptr, size_t bytes, size_t size, const char* why) const;
  [[gnu::cold]] static rmmjs_status NotHandedOut(uintptr_t ptr, size_t bytes, const char* why);

  static const void* AsPointer(uintptr_t ptr) { return reinterpret_cast<const void*>(ptr); }

  static constexpr size_t kAlignment = RMMJS_ALLOCATION_ALIGNMENT;
  static constexpr const char* kAlreadyFree = "the range is already free (freed twice, or the wrong size)";

  ResourceRef upstream_;
  std::optional<size_t> initial_pool_size_;
  std::optional<size_t> maximum_pool_size_;

  size_t pool_size_ = 0;     // committed upstream bytes
  size_t growing_ = 0;       // bytes being requested from upstream right now (outside the lock)
  CoalescingBlocks blocks_;  // the upstream allocations and their blocks' records
  // Every block handed out, by address: its record. Sharded: threads with caches check their frees
  // here without the pool's lock.
  ShardedPointerTable<Block*> handed_out_;
  std::atomic<bool> told_untracked_{false};  // the log said once that frees are slower
};

using PoolMemoryResource = StreamOrderedResource<PoolBlocks>;

}  // namespace rmmjs
