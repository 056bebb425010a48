#include "fixed_size_memory_resource.h"

#include <algorithm>
#include <new>
#include <string>

#include "rmmjs/format.hpp"
#include "rmmjs/status.hpp"

namespace rmmjs {
namespace {

constexpr rmmjs_stream kDefaultStream = 0;

int Log2IfPowerOfTwo(size_t value) {
  if ((value & (value - 1)) != 0) return -1;
  int shift = 0;
  while ((size_t{1} << shift) != value) shift++;
  return shift;
}

}  // namespace

FixedSizeBlocks::FixedSizeBlocks(ResourceRef upstream, size_t block_size, size_t blocks_to_preallocate)
    : upstream_(std::move(upstream)),
      block_size_(AlignUp(block_size, RMMJS_ALLOCATION_ALIGNMENT)),
      block_shift_(Log2IfPowerOfTwo(block_size_)),
      blocks_per_chunk_(blocks_to_preallocate),
      chunk_bytes_(block_size_ * blocks_to_preallocate) {}

// As RMM: the first chunk is taken on the legacy default stream and its blocks are free on it.
rmmjs_status FixedSizeBlocks::Init(FreeList& legacy) {
  void* base = nullptr;
  RMMJS_TRY(TakeChunk(kDefaultStream, &base));
  try {
    AddChunk(base, legacy);
  } catch (const std::bad_alloc&) {
    CoreApi()->deallocate(upstream_.get(), base, chunk_bytes_, kDefaultStream);
    throw;
  }
  return RMMJS_OK;
}

// Every free list is empty: another chunk, taken without the lock (the upstream may block). Its
// blocks become free on this stream.
rmmjs_status FixedSizeBlocks::Grow(Growth& growth, FreeList& own, rmmjs_stream stream, size_t size, Block* out) {
  void* base = nullptr;
  growth.Unlock();
  const rmmjs_status status = TakeChunk(stream, &base);
  growth.Relock();
  RMMJS_TRY(status);
  try {
    AddChunk(base, own);
  } catch (const std::bad_alloc&) {
    growth.Unlock();
    CoreApi()->deallocate(upstream_.get(), base, chunk_bytes_, stream);
    growth.Relock();
    throw;
  }
  *out = own.Take(size);
  return RMMJS_OK;
}

void FixedSizeBlocks::Release() {
  for (const Chunk& chunk : chunks_) {
    if (CoreApi()->deallocate(upstream_.get(), reinterpret_cast<void*>(chunk.base), chunk_bytes_, kDefaultStream) !=
        RMMJS_OK) {
      LogAt(RMMJS_LOG_ERROR, "FixedSizeMemoryResource: returning memory upstream failed: " + LastErrorMessage());
    }
  }
}

rmmjs_status FixedSizeBlocks::TooLarge(size_t bytes) {
  return Fail(RMMJS_ERR_OUT_OF_MEMORY,
              "Maximum allocation size exceeded (failed to allocate " +
                  FormatBytes(bytes > SIZE_MAX - 255 ? bytes : AlignUp(bytes, RMMJS_ALLOCATION_ALIGNMENT)) + ")");
}

rmmjs_status FixedSizeBlocks::NotOurBlock(uintptr_t ptr, size_t bytes) {
  return Fail(RMMJS_ERR_LOGIC, "FixedSizeMemoryResource: cannot deallocate " + std::to_string(bytes) + " bytes at " +
                                   FormatHex(ptr) + ": not a block it handed out, or already deallocated");
}

rmmjs_status FixedSizeBlocks::TakeChunk(rmmjs_stream stream, void** base) {
  RMMJS_TRY(CoreApi()->allocate(upstream_.get(), chunk_bytes_, stream, base));
  if (*base == nullptr) {  // a custom upstream that "succeeded" without memory
    return Fail(RMMJS_ERR_OUT_OF_MEMORY, "FixedSizeMemoryResource: the upstream returned a null pointer");
  }
  return RMMJS_OK;
}

void FixedSizeBlocks::AddChunk(void* base, FreeList& list) {
  const auto address = reinterpret_cast<uintptr_t>(base);
  Chunk chunk{address, std::make_unique<uint64_t[]>((blocks_per_chunk_ + 63) / 64)};
  list.Reserve(blocks_per_chunk_);
  chunks_.reserve(chunks_.size() + 1);
  auto at = std::upper_bound(chunks_.begin(), chunks_.end(), address,
                             [](uintptr_t value, const Chunk& c) { return value < c.base; });
  chunks_.insert(at, std::move(chunk));
  for (size_t i = 0; i < blocks_per_chunk_; i++) list.Insert(address + i * block_size_);
}

}  // namespace rmmjs
