// RMM's fixed_size_memory_resource: blocks of one size carved from chunks of
// `blocks_to_preallocate` blocks taken from the upstream (one chunk at construction, another
// whenever every free list is empty), with RMM's stream-ordered free lists
// (stream_ordered_memory_resource): a block freed on stream A is reused on A at once and on
// another stream only after that stream waits on A's event. All chunks go back upstream when
// the resource is destroyed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>  // std::lock_guard
#include <unordered_map>
#include <vector>

#include "block_queue.h"
#include "spin_lock.h"
#include "rmmjs/abi.h"
#include "rmmjs/resource.hpp"

namespace rmmjs {

class FixedSizeMemoryResource {
 public:
  static constexpr const char* kTypeName = "FixedSizeMemoryResource";

  // block_size is aligned up to 256; both arguments must be non-zero (checked by the caller).
  FixedSizeMemoryResource(ResourceRef upstream, int32_t device, size_t block_size, size_t blocks_to_preallocate);
  ~FixedSizeMemoryResource();
  FixedSizeMemoryResource(const FixedSizeMemoryResource&) = delete;
  FixedSizeMemoryResource& operator=(const FixedSizeMemoryResource&) = delete;

  rmmjs_status Init(rmmjs_resource* self);  // takes the first chunk from the upstream
  rmmjs_status Allocate(size_t bytes, rmmjs_stream stream, void** out);
  rmmjs_status Deallocate(void* ptr, size_t bytes, rmmjs_stream stream);
  rmmjs_resource* Upstream() const { return upstream_.get(); }

  size_t block_size() const { return block_size_; }

 private:
  // The free blocks last used on one stream, and the event other streams wait on before
  // taking one of them.
  struct StreamFreeList {
    rmmjs_stream stream = 0;
    rmmjs_event event = nullptr;  // created when first recorded or waited on
    // The legacy default stream cannot be destroyed, so its event is recorded only when
    // another stream takes one of its blocks (frees on it make no driver call). Any other
    // stream may be gone by then, so frees on it record the event at once, as RMM does.
    bool record_lazily = false;
    bool unrecorded_frees = false;  // record_lazily: blocks freed since the last record
    bool recorded = false;          // the event has been recorded at least once
    BlockQueue blocks;
    size_t nonempty_slot = kNoSlot;  // index in nonempty_lists_
  };

  // One upstream allocation of chunk_bytes_, with a bit per block that is handed out.
  struct Chunk {
    uintptr_t base;
    std::unique_ptr<uint64_t[]> allocated;
  };

  static constexpr size_t kNoSlot = SIZE_MAX;

  StreamFreeList* FindList(rmmjs_stream stream);
  StreamFreeList& ListFor(rmmjs_stream stream);  // creates it (may throw std::bad_alloc)
  void PushFree(StreamFreeList& list, void* block);
  void* PopFree(StreamFreeList& list);
  rmmjs_status EnsureEvent(StreamFreeList& list);
  // Makes `stream` wait for the work that last used the blocks of `other` (under the lock).
  rmmjs_status WaitForList(StreamFreeList& other, rmmjs_stream stream);
  // The chunk and block index of ptr, or false when ptr is not the start of one of our blocks.
  bool Locate(void* ptr, Chunk** chunk, size_t* index);
  void MarkAllocated(void* block);
  rmmjs_status TakeChunk(rmmjs_stream stream, void** base);  // from the upstream
  void AddChunk(void* base, StreamFreeList& list);
  rmmjs_status OutOfHostMemory();

  ResourceRef upstream_;
  int32_t device_;
  size_t block_size_;
  int block_shift_;  // log2(block_size_) when it is a power of two, else -1
  size_t blocks_per_chunk_;
  size_t chunk_bytes_;

  SpinLock lock_;
  std::vector<Chunk> chunks_;  // sorted by base
  std::unordered_map<uintptr_t, std::unique_ptr<StreamFreeList>> lists_;  // by stream key
  StreamFreeList* legacy_ = nullptr;  // streams 0 and CU_STREAM_LEGACY (1)
  std::vector<StreamFreeList*> nonempty_lists_;
};

}  // namespace rmmjs
