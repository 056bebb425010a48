// RMM's fixed_size_memory_resource: blocks of one size carved from chunks of
// `blocks_to_preallocate` blocks taken from the upstream (one chunk at construction, another
// whenever no list can serve a request), on core's stream-ordered free lists
// (rmmjs/stream_ordered_resource.hpp). FixedSizeBlocks is the policy: a free list is a queue of
// blocks (BlockQueue), and a bitmap per chunk says which blocks are handed out (so a double free is
// caught).
// All chunks go back upstream when the resource is destroyed.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "block_queue.h"
#include "rmmjs/abi.h"
#include "rmmjs/resource.hpp"
#include "rmmjs/stream_ordered_resource.hpp"

namespace rmmjs {

class FixedSizeBlocks {
 public:
  static constexpr const char* kTypeName = "FixedSizeMemoryResource";
  using FreeList = BlockQueue;
  using Block = BlockQueue::Block;
  using Growth = stream_ordered::Growth<FreeList>;

  // block_size is aligned up to 256; both arguments are non-zero and their product fits in a
  // size_t (FixedSizeMemoryResource's constructor in TypeScript checks them).
  FixedSizeBlocks(ResourceRef upstream, size_t block_size, size_t blocks_to_preallocate);

  rmmjs_resource* Upstream() const { return upstream_.get(); }
  size_t block_size() const { return block_size_; }

  // The policy of StreamOrderedResource.
  FreeList NewFreeList() const { return FreeList(block_size_); }
  rmmjs_status Init(FreeList& legacy);
  rmmjs_status BlockSize(size_t bytes, size_t* size) const {
    if (bytes > block_size_) return TooLarge(bytes);
    *size = block_size_;
    return RMMJS_OK;
  }
  uintptr_t HandOut(Block block) noexcept {
    Chunk* chunk = nullptr;
    size_t index = 0;
    Locate(block, &chunk, &index);
    chunk->allocated[index / 64] |= uint64_t{1} << (index % 64);
    return block;
  }
  rmmjs_status TakeBack(uintptr_t ptr, size_t bytes, Block* block) {
    Chunk* chunk = nullptr;
    size_t index = 0;
    if (!Locate(ptr, &chunk, &index)) return NotOurBlock(ptr, bytes);
    uint64_t& word = chunk->allocated[index / 64];
    const uint64_t bit = uint64_t{1} << (index % 64);
    if ((word & bit) == 0) return NotOurBlock(ptr, bytes);
    word &= ~bit;
    *block = ptr;
    return RMMJS_OK;
  }
  rmmjs_status Grow(Growth& growth, FreeList& own, rmmjs_stream stream, size_t size, Block* out);
  void Release();

 private:
  // One upstream allocation of chunk_bytes_, with a bit per block that is handed out.
  struct Chunk {
    uintptr_t base;
    std::unique_ptr<uint64_t[]> allocated;
  };

  // The chunk and block index of ptr, or false when ptr is not the start of one of our blocks.
  bool Locate(uintptr_t ptr, Chunk** chunk, size_t* index) noexcept {
    auto after = std::upper_bound(chunks_.begin(), chunks_.end(), ptr,
                                  [](uintptr_t value, const Chunk& c) { return value < c.base; });
    if (after == chunks_.begin()) return false;
    Chunk& found = *(after - 1);
    const size_t offset = ptr - found.base;
    if (offset >= chunk_bytes_) return false;
    const size_t block = block_shift_ >= 0 ? offset >> block_shift_ : offset / block_size_;
    if (block * block_size_ != offset) return false;
    *chunk = &found;
    *index = block;
    return true;
  }
  // RMM's message, with the request aligned up as RMM reports it.
  [[gnu::cold]] static rmmjs_status TooLarge(size_t bytes);
  [[gnu::cold]] static rmmjs_status NotOurBlock(uintptr_t ptr, size_t bytes);
  rmmjs_status TakeChunk(rmmjs_stream stream, void** base);  // from the upstream
  // Registers a chunk from the upstream; its blocks become free on list, in address order.
  // May throw std::bad_alloc, before it changes anything.
  void AddChunk(void* base, FreeList& list);

  ResourceRef upstream_;
  size_t block_size_;
  int block_shift_;  // log2(block_size_) when it is a power of two, else -1
  size_t blocks_per_chunk_;
  size_t chunk_bytes_;
  std::vector<Chunk> chunks_;  // sorted by base
};

using FixedSizeMemoryResource = StreamOrderedResource<FixedSizeBlocks>;

}  // namespace rmmjs
