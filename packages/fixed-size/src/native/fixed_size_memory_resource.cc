#include "fixed_size_memory_resource.h"

#include <algorithm>
#include <atomic>
#include <new>
#include <string>

#include "rmmjs/format.hpp"

namespace rmmjs {
namespace {

constexpr rmmjs_stream kLegacyDefaultStream = 0;
constexpr rmmjs_stream kCuStreamLegacy = 1;
constexpr rmmjs_stream kCuStreamPerThread = 2;
constexpr uintptr_t kLegacyKey = 1;

// The per-thread default stream is a different stream on every thread, so each thread gets its
// own free list (RMM gives each thread its own event for it). Thread ids are never reused.
uintptr_t PerThreadKey() {
  static std::atomic<uintptr_t> next_thread{1};
  thread_local uintptr_t key = (next_thread.fetch_add(1, std::memory_order_relaxed) << 2) | kCuStreamPerThread;
  return key;
}

// Stream handles are pointers (or 0, 1, 2), so keys of per-thread lists (low bits 10) cannot
// collide with them.
uintptr_t StreamKey(rmmjs_stream stream) {
  if (stream <= kCuStreamLegacy) return kLegacyKey;
  if (stream == kCuStreamPerThread) return PerThreadKey();
  return stream;
}


// RMM's message, with the request aligned up as RMM reports it.
[[gnu::cold]] rmmjs_status TooLarge(size_t bytes) {
  std::string message = "Maximum allocation size exceeded (failed to allocate " +
                        FormatBytes(bytes > SIZE_MAX - 255 ? bytes : AlignUp(bytes, RMMJS_ALLOCATION_ALIGNMENT)) + ")";
  return CoreApi()->set_error(RMMJS_ERR_OUT_OF_MEMORY, 0, message.c_str());
}

[[gnu::cold]] rmmjs_status NotOurBlock(void* ptr, size_t bytes) {
  std::string message = "FixedSizeMemoryResource: cannot deallocate " + std::to_string(bytes) + " bytes at " +
                        FormatHex(reinterpret_cast<uintptr_t>(ptr)) + ": not a block it handed out, or already deallocated";
  return CoreApi()->set_error(RMMJS_ERR_LOGIC, 0, message.c_str());
}

#define RMMJS_RETURN_IF_ERROR(expr)      \
  do {                                   \
    rmmjs_status status_ = (expr);       \
    if (status_ != RMMJS_OK) return status_; \
  } while (0)

int Log2IfPowerOfTwo(size_t value) {
  if ((value & (value - 1)) != 0) return -1;
  int shift = 0;
  while ((size_t{1} << shift) != value) shift++;
  return shift;
}

}  // namespace

FixedSizeMemoryResource::FixedSizeMemoryResource(ResourceRef upstream, int32_t device, size_t block_size,
                                                 size_t blocks_to_preallocate)
    : upstream_(std::move(upstream)),
      device_(device),
      block_size_(AlignUp(block_size, RMMJS_ALLOCATION_ALIGNMENT)),
      block_shift_(Log2IfPowerOfTwo(block_size_)),
      blocks_per_chunk_(blocks_to_preallocate),
      chunk_bytes_(block_size_ * blocks_to_preallocate) {}

rmmjs_status FixedSizeMemoryResource::Init(rmmjs_resource*) {
  try {
    legacy_ = &ListFor(kLegacyDefaultStream);
  } catch (const std::bad_alloc&) {
    return OutOfHostMemory();
  }
  legacy_->record_lazily = true;
  // As RMM: the first chunk is taken on the legacy default stream and its blocks are free on it.
  void* base = nullptr;
  RMMJS_RETURN_IF_ERROR(TakeChunk(kLegacyDefaultStream, &base));
  {
    std::lock_guard<SpinLock> lock(lock_);
    try {
      AddChunk(base, *legacy_);
      return RMMJS_OK;
    } catch (const std::bad_alloc&) {
    }
  }
  CoreApi()->deallocate(upstream_.get(), base, chunk_bytes_, kLegacyDefaultStream);
  return OutOfHostMemory();
}

FixedSizeMemoryResource::~FixedSizeMemoryResource() {
  // As RMM's release(): wait for the work that last used each free list, then return every chunk.
  DeviceContext context(device_);
  const rmmjs_core_api* api = CoreApi();
  for (auto& [key, list] : lists_) {
    if (list->record_lazily && list->unrecorded_frees && EnsureEvent(*list) == RMMJS_OK &&
        api->event_record(list->event, list->stream) == RMMJS_OK) {
      list->recorded = true;
    }
    if (list->event == nullptr) continue;
    if (list->recorded) api->event_synchronize(list->event);
    api->event_destroy(list->event);
  }
  for (const Chunk& chunk : chunks_) {
    api->deallocate(upstream_.get(), reinterpret_cast<void*>(chunk.base), chunk_bytes_, kLegacyDefaultStream);
  }
}

rmmjs_status FixedSizeMemoryResource::Allocate(size_t bytes, rmmjs_stream stream, void** out) {
  if (bytes > block_size_) return TooLarge(bytes);
  {
    std::lock_guard<SpinLock> lock(lock_);
    StreamFreeList* own = FindList(stream);
    if (own != nullptr && !own->blocks.empty()) {
      *out = PopFree(*own);
      return RMMJS_OK;
    }
    // Any block free on another stream, once this stream waits for that stream's work.
    for (StreamFreeList* other : nonempty_lists_) {
      if (other == own) continue;
      rmmjs_status status = WaitForList(*other, stream);
      if (status != RMMJS_OK) return status;
      *out = PopFree(*other);
      return RMMJS_OK;
    }
  }
  // Every free list is empty: another chunk, taken without holding the lock (the upstream
  // may block). Its blocks become free on this stream.
  void* base = nullptr;
  RMMJS_RETURN_IF_ERROR(TakeChunk(stream, &base));
  {
    std::lock_guard<SpinLock> lock(lock_);
    try {
      StreamFreeList& list = ListFor(stream);
      AddChunk(base, list);
      *out = PopFree(list);
      return RMMJS_OK;
    } catch (const std::bad_alloc&) {
    }
  }
  CoreApi()->deallocate(upstream_.get(), base, chunk_bytes_, stream);
  return OutOfHostMemory();
}

rmmjs_status FixedSizeMemoryResource::Deallocate(void* ptr, size_t bytes, rmmjs_stream stream) {
  rmmjs_event event = nullptr;
  StreamFreeList* list = nullptr;
  // The block's word in its chunk's bitmap (heap memory of its own: stays put when chunks_ grows).
  uint64_t* word = nullptr;
  uint64_t bit = 0;
  try {
    std::lock_guard<SpinLock> lock(lock_);
    Chunk* chunk = nullptr;
    size_t index = 0;
    if (Locate(ptr, &chunk, &index)) {
      word = &chunk->allocated[index / 64];
      bit = uint64_t{1} << (index % 64);
    }
    if (word == nullptr || (*word & bit) == 0) return NotOurBlock(ptr, bytes);
    list = &ListFor(stream);
    list->blocks.Reserve(1);
    if (list->record_lazily) {
      *word &= ~bit;
      PushFree(*list, ptr);
      list->unrecorded_frees = true;
      return RMMJS_OK;
    }
    rmmjs_status status = EnsureEvent(*list);
    if (status != RMMJS_OK) return status;
    event = list->event;
    *word &= ~bit;  // a second free of ptr fails from here on
  } catch (const std::bad_alloc&) {
    return OutOfHostMemory();
  }
  // Recorded before the block becomes visible to other streams, outside the lock. A concurrent
  // record of the same event on the same stream only moves it later, which is still safe.
  rmmjs_status status;
  {
    DeviceContext context(device_);  // native callers may have none current
    status = context.status() == RMMJS_OK ? CoreApi()->event_record(event, stream) : context.status();
  }
  std::lock_guard<SpinLock> lock(lock_);
  if (status == RMMJS_OK) {
    list->recorded = true;
    try {
      list->blocks.Reserve(1);
      PushFree(*list, ptr);
      return RMMJS_OK;
    } catch (const std::bad_alloc&) {
      status = OutOfHostMemory();
    }
  }
  // The block stays with the caller: nothing would order its reuse after the caller's work.
  *word |= bit;
  return status;
}

FixedSizeMemoryResource::StreamFreeList* FixedSizeMemoryResource::FindList(rmmjs_stream stream) {
  uintptr_t key = StreamKey(stream);
  if (key == kLegacyKey) return legacy_;
  auto found = lists_.find(key);
  return found == lists_.end() ? nullptr : found->second.get();
}

FixedSizeMemoryResource::StreamFreeList& FixedSizeMemoryResource::ListFor(rmmjs_stream stream) {
  if (StreamFreeList* list = FindList(stream)) return *list;
  nonempty_lists_.reserve(lists_.size() + 1);
  auto list = std::make_unique<StreamFreeList>();
  list->stream = stream;
  StreamFreeList& result = *list;
  lists_.emplace(StreamKey(stream), std::move(list));
  return result;
}

// Never allocates: ListFor keeps room for every list in nonempty_lists_, and callers reserve
// room in list.blocks before they change anything.
void FixedSizeMemoryResource::PushFree(StreamFreeList& list, void* block) {
  if (list.blocks.empty()) {
    list.nonempty_slot = nonempty_lists_.size();
    nonempty_lists_.push_back(&list);
  }
  list.blocks.Push(block);
}

void* FixedSizeMemoryResource::PopFree(StreamFreeList& list) {
  void* block = list.blocks.Pop();
  if (list.blocks.empty()) {
    StreamFreeList* last = nonempty_lists_.back();
    nonempty_lists_[list.nonempty_slot] = last;
    last->nonempty_slot = list.nonempty_slot;
    nonempty_lists_.pop_back();
    list.nonempty_slot = kNoSlot;
  }
  MarkAllocated(block);
  return block;
}

rmmjs_status FixedSizeMemoryResource::EnsureEvent(StreamFreeList& list) {
  if (list.event != nullptr) return RMMJS_OK;
  DeviceContext context(device_);
  if (context.status() != RMMJS_OK) return context.status();
  return CoreApi()->event_create(&list.event);
}

rmmjs_status FixedSizeMemoryResource::WaitForList(StreamFreeList& other, rmmjs_stream stream) {
  if (!other.recorded && !other.unrecorded_frees) return RMMJS_OK;  // never used: nothing to wait for
  DeviceContext context(device_);
  if (context.status() != RMMJS_OK) return context.status();
  const rmmjs_core_api* api = CoreApi();
  if (other.unrecorded_frees) {
    rmmjs_status status = EnsureEvent(other);
    if (status == RMMJS_OK) status = api->event_record(other.event, other.stream);
    if (status != RMMJS_OK) return status;
    other.unrecorded_frees = false;
    other.recorded = true;
  }
  return api->stream_wait_event(stream, other.event);
}

bool FixedSizeMemoryResource::Locate(void* ptr, Chunk** chunk, size_t* index) {
  auto address = reinterpret_cast<uintptr_t>(ptr);
  auto after = std::upper_bound(chunks_.begin(), chunks_.end(), address,
                                [](uintptr_t value, const Chunk& c) { return value < c.base; });
  if (after == chunks_.begin()) return false;
  Chunk& found = *(after - 1);
  size_t offset = address - found.base;
  if (offset >= chunk_bytes_) return false;
  size_t block = block_shift_ >= 0 ? offset >> block_shift_ : offset / block_size_;
  if (block * block_size_ != offset) return false;
  *chunk = &found;
  *index = block;
  return true;
}

void FixedSizeMemoryResource::MarkAllocated(void* block) {
  Chunk* chunk = nullptr;
  size_t index = 0;
  Locate(block, &chunk, &index);
  chunk->allocated[index / 64] |= uint64_t{1} << (index % 64);
}

rmmjs_status FixedSizeMemoryResource::TakeChunk(rmmjs_stream stream, void** base) {
  RMMJS_RETURN_IF_ERROR(CoreApi()->allocate(upstream_.get(), chunk_bytes_, stream, base));
  if (*base == nullptr) {  // a custom upstream that "succeeded" without memory
    return CoreApi()->set_error(RMMJS_ERR_OUT_OF_MEMORY, 0, "FixedSizeMemoryResource: the upstream returned a null pointer");
  }
  return RMMJS_OK;
}

// Registers a chunk from the upstream; its blocks become free on `list`, in address order.
// May throw std::bad_alloc, before it changes anything.
void FixedSizeMemoryResource::AddChunk(void* base, StreamFreeList& list) {
  auto address = reinterpret_cast<uintptr_t>(base);
  Chunk chunk{address, std::make_unique<uint64_t[]>((blocks_per_chunk_ + 63) / 64)};
  list.blocks.Reserve(blocks_per_chunk_);
  auto at = std::upper_bound(chunks_.begin(), chunks_.end(), address,
                             [](uintptr_t value, const Chunk& c) { return value < c.base; });
  chunks_.insert(at, std::move(chunk));
  for (size_t i = 0; i < blocks_per_chunk_; i++) PushFree(list, reinterpret_cast<void*>(address + i * block_size_));
}

rmmjs_status FixedSizeMemoryResource::OutOfHostMemory() {
  return CoreApi()->set_error(RMMJS_ERR_OUT_OF_MEMORY, 0, "FixedSizeMemoryResource: out of host memory");
}

}  // namespace rmmjs
