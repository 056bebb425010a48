// The least a suballocator on core's stream-ordered lists has to say: a policy over core's
// CoalescingFreeList that takes memory from its upstream when nothing fits and finds a freed
// block's record by a walk (PoolMemoryResource keeps a table instead). The test addon's
// CMakeLists.txt compiles it as it is, which must succeed, and with one member left out
// (-DLEAVE_OUT_<member>), which must fail with the static_assert that names that member.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <new>
#include <utility>

#include "rmmjs/coalescing_free_list.hpp"
#include "rmmjs/format.hpp"
#include "rmmjs/stream_ordered_resource.hpp"

namespace {

using rmmjs::CoalescingBlocks;
using rmmjs::CoalescingFreeList;
using rmmjs::CoreApi;
using rmmjs::ResourceRef;
namespace coalescing = rmmjs::coalescing;

class MinimalBlocks {
 public:
  static constexpr const char* kTypeName = "MinimalMemoryResource";
  using FreeList = CoalescingFreeList;
  using Block = coalescing::Block;

  explicit MinimalBlocks(ResourceRef upstream) : upstream_(std::move(upstream)) {}

  rmmjs_resource* Upstream() const { return upstream_.get(); }
  FreeList NewFreeList() { return FreeList(blocks_); }
  rmmjs_status Init(FreeList&) { return RMMJS_OK; }  // no memory until the first allocation
#ifndef LEAVE_OUT_BlockSize
  rmmjs_status BlockSize(size_t bytes, size_t* size) const {
    if (bytes > SIZE_MAX - RMMJS_ALLOCATION_ALIGNMENT) return rmmjs::Fail(RMMJS_ERR_OUT_OF_MEMORY, "too large");
    *size = rmmjs::AlignUp(bytes, RMMJS_ALLOCATION_ALIGNMENT);
    return RMMJS_OK;
  }
#endif
#ifndef LEAVE_OUT_noexcept
  uintptr_t HandOut(Block* block) noexcept { return block->start; }
#else
  uintptr_t HandOut(Block* block) { return block->start; }
#endif
#ifndef LEAVE_OUT_TakeBack
  rmmjs_status TakeBack(uintptr_t ptr, size_t bytes, Block** out) {
    const coalescing::UpstreamBlock* upstream = blocks_.FindUpstream(ptr);
    Block* block = upstream == nullptr ? nullptr : CoalescingBlocks::BlockAt(*upstream, ptr);
    if (block == nullptr || block->list != nullptr || bytes > SIZE_MAX - RMMJS_ALLOCATION_ALIGNMENT ||
        block->size != rmmjs::AlignUp(bytes, RMMJS_ALLOCATION_ALIGNMENT)) {
      return rmmjs::Fail(RMMJS_ERR_LOGIC, "MinimalMemoryResource: not a block it handed out");
    }
    *out = block;
    return RMMJS_OK;
  }
#endif
  // A new upstream allocation of at least 1 MiB: its front is the block asked for, the rest free on own.
  rmmjs_status Grow(rmmjs::stream_ordered::Growth<FreeList>& growth, FreeList& own, rmmjs_stream stream, size_t size,
                    Block** out) {
    const size_t bytes = std::max(size, size_t{1} << 20);
    void* memory = nullptr;
    growth.Unlock();  // the upstream may block: other threads keep using the lists meanwhile
    const rmmjs_status status = CoreApi()->allocate(upstream_.get(), bytes, stream, &memory);
    growth.Relock();
    RMMJS_TRY(status);
    try {
      *out = blocks_.AddUpstream(reinterpret_cast<uintptr_t>(memory), bytes, size, own);
    } catch (const std::bad_alloc&) {
      CoreApi()->deallocate(upstream_.get(), memory, bytes, stream);
      throw;
    }
    return RMMJS_OK;
  }
  void Release() {
    for (const auto& upstream : blocks_.upstream_blocks()) {
      CoreApi()->deallocate(upstream_.get(), reinterpret_cast<void*>(upstream->begin), upstream->size, 0);
    }
  }

 private:
  ResourceRef upstream_;
  CoalescingBlocks blocks_;
};

using MinimalMemoryResource = rmmjs::StreamOrderedResource<MinimalBlocks>;

}  // namespace

// Instantiates all of it, as an addon's create function would.
rmmjs_status MakeMinimalMemoryResource(rmmjs_resource* upstream, rmmjs_resource** out) {
  return rmmjs::NewResource<MinimalMemoryResource>(upstream->device, 0, out, ResourceRef::Retain(upstream));
}
