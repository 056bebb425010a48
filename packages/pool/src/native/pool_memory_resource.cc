#include "pool_memory_resource.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <new>

#include "rmmjs/format.hpp"

namespace rmmjs {

using pool::StreamState;
using pool::UpstreamBlock;

namespace {

constexpr size_t kAlignment = RMMJS_ALLOCATION_ALIGNMENT;
constexpr rmmjs_stream kDefaultStream = 0;
constexpr size_t kHostDefaultPoolSize = size_t{256} << 20;


std::string LastErrorMessage() {
  const char* message = CoreApi()->error_message();
  return message != nullptr ? message : "";
}

void LogDebug(const std::string& message) {
  if (CoreApi()->should_log(RMMJS_LOG_DEBUG)) CoreApi()->log(RMMJS_LOG_DEBUG, message.c_str());
}

}  // namespace

PoolMemoryResource::PoolMemoryResource(ResourceRef upstream, int32_t device, size_t initial_pool_size,
                                       size_t maximum_pool_size)
    : upstream_(std::move(upstream)),
      device_(device),
      initial_pool_size_(initial_pool_size),
      maximum_pool_size_(maximum_pool_size),
      stream_ordered_(CoreApi()->cuda_available() != 0) {}

PoolMemoryResource::~PoolMemoryResource() {
  const rmmjs_core_api* api = CoreApi();
  if (stream_ordered_) {
    // Work queued before the last frees must finish before the memory goes back upstream.
    DeviceContext context(device_);
    for (StreamState* state : stream_order_) {
      if (state->lazy) api->stream_synchronize(state->stream);
      else if (state->event != nullptr) api->event_synchronize(state->event);
    }
  }
  for (const UpstreamBlock& block : upstream_blocks_.blocks()) {
    if (api->deallocate(upstream_.get(), reinterpret_cast<void*>(block.begin), block.size, kDefaultStream) != RMMJS_OK) {
      api->log(RMMJS_LOG_ERROR, ("PoolMemoryResource: returning memory upstream failed: " + LastErrorMessage()).c_str());
    }
  }
  if (stream_ordered_) {
    DeviceContext context(device_);
    for (StreamState* state : stream_order_) {
      if (state->event != nullptr) api->event_destroy(state->event);
    }
  }
}

rmmjs_status PoolMemoryResource::Validate(size_t initial_pool_size, size_t maximum_pool_size) {
  const rmmjs_core_api* api = CoreApi();
  if (initial_pool_size % kAlignment != 0) {
    return api->set_error(RMMJS_ERR_LOGIC, 0, "Error, Initial pool size required to be a multiple of 256 bytes");
  }
  if (maximum_pool_size != kNoMaximum && maximum_pool_size % kAlignment != 0) {
    return api->set_error(RMMJS_ERR_LOGIC, 0, "Error, Maximum pool size required to be a multiple of 256 bytes");
  }
  if (initial_pool_size > maximum_pool_size) {
    return api->set_error(RMMJS_ERR_LOGIC, 0, "Initial pool size exceeds the maximum pool size!");
  }
  return RMMJS_OK;
}

rmmjs_status PoolMemoryResource::DefaultInitialPoolSize(int32_t device, size_t maximum_pool_size, size_t* out) {
  size_t size = kHostDefaultPoolSize;
  if (CoreApi()->cuda_available()) {
    size_t free_bytes = 0;
    size_t total_bytes = 0;
    rmmjs_status status = CoreApi()->mem_get_info(device, &free_bytes, &total_bytes);
    if (status != RMMJS_OK) return status;
    size = AlignDown(free_bytes / 2, kAlignment);
  } else {
    // Host mode: 256 MiB, or half the host's memory where that is less.
    long pages = sysconf(_SC_PHYS_PAGES);
    long page_size = sysconf(_SC_PAGE_SIZE);
    if (pages > 0 && page_size > 0) {
      size = std::min(size, AlignDown(static_cast<size_t>(pages) * static_cast<size_t>(page_size) / 2, kAlignment));
    }
  }
  *out = std::min(size, maximum_pool_size);
  return RMMJS_OK;
}

rmmjs_status PoolMemoryResource::Init(rmmjs_resource*) try {
  if (initial_pool_size_ == 0) return RMMJS_OK;
  void* block = nullptr;
  rmmjs_status status = CoreApi()->allocate(upstream_.get(), initial_pool_size_, kDefaultStream, &block);
  if (status == RMMJS_ERR_JS_EXCEPTION) return status;
  if (status != RMMJS_OK) return Exceeded(initial_pool_size_, LastErrorMessage(), kDefaultStream);
  UpstreamBlock initial{reinterpret_cast<uintptr_t>(block), initial_pool_size_};
  Lock lock(mutex_);
  upstream_blocks_.Add(initial);
  pool_size_ = initial.size;
  free_blocks_.Insert(StateOf({StreamKind::kLegacy, 0}, kDefaultStream).free, initial.begin, initial.size, initial);
  return RMMJS_OK;
} catch (const std::bad_alloc&) {
  return CoreApi()->set_error(RMMJS_ERR_OUT_OF_MEMORY, 0, "PoolMemoryResource: out of host memory");
}

size_t PoolMemoryResource::pool_size() {
  Lock lock(mutex_);
  return pool_size_;
}

rmmjs_status PoolMemoryResource::Allocate(size_t bytes, rmmjs_stream stream, void** out) try {
  if (bytes > SIZE_MAX - kAlignment) return Exceeded(bytes, "the size cannot be aligned to 256 bytes", stream);
  const size_t size = AlignUp(bytes, kAlignment);
  StreamKey key;
  rmmjs_status status = KeyOf(stream, &key);
  if (status != RMMJS_OK) return status;
  Lock lock(mutex_);
  StreamState& own = StateOf(key, stream);
  uintptr_t ptr = free_blocks_.TakeBestFit(own.free, size);
  if (ptr == 0) {
    status = TakeFromOtherStream(lock, own, stream, size, &ptr);
    if (status == RMMJS_OK && ptr == 0) status = MergeOtherStreams(own, stream, size, &ptr);
    if (status == RMMJS_OK && ptr == 0) status = Grow(lock, own, stream, size, &ptr);
    if (status != RMMJS_OK) return status;
  }
  *out = reinterpret_cast<void*>(ptr);
  return RMMJS_OK;
} catch (const std::bad_alloc&) {
  return CoreApi()->set_error(RMMJS_ERR_OUT_OF_MEMORY, 0, "PoolMemoryResource: out of host memory");
}

rmmjs_status PoolMemoryResource::Deallocate(void* pointer, size_t bytes, rmmjs_stream stream) try {
  if (bytes == 0) return RMMJS_OK;
  const rmmjs_core_api* api = CoreApi();
  const uintptr_t ptr = reinterpret_cast<uintptr_t>(pointer);
  const size_t size = bytes > SIZE_MAX - kAlignment ? 0 : AlignUp(bytes, kAlignment);
  StreamKey key;
  rmmjs_status status = KeyOf(stream, &key);
  if (status != RMMJS_OK) return status;
  Lock lock(mutex_);
  StreamState& own = StateOf(key, stream);
  if (stream_ordered_ && !own.lazy) {
    // Recorded now, while the stream surely exists: another stream may take this block after the
    // stream is destroyed. Recorded before the block is visible, so whoever takes it waits on a
    // record made after this free (outside the lock: a driver call).
    status = EnsureEvent(own);
    if (status != RMMJS_OK) return status;
    rmmjs_event event = own.event;
    lock.unlock();
    {
      DeviceContext context(device_);
      if (context.status() != RMMJS_OK) return context.status();
      status = api->event_record(event, stream);
      if (status != RMMJS_OK) return status;
    }
    lock.lock();
  }
  const UpstreamBlock* upstream = upstream_blocks_.Find(ptr);
  if (upstream == nullptr || size == 0 || (ptr - upstream->begin) % kAlignment != 0 || size > upstream->end() - ptr) {
    std::string message = "PoolMemoryResource: cannot deallocate " + FormatHex(ptr) + " (" + std::to_string(bytes) +
                          " bytes): not memory this pool handed out";
    return api->set_error(RMMJS_ERR_INVALID_ARGUMENT, 0, message.c_str());
  }
  if (!free_blocks_.Insert(own.free, ptr, size, *upstream)) {
    std::string message = "PoolMemoryResource: cannot deallocate " + FormatHex(ptr) + " (" + std::to_string(bytes) +
                          " bytes): the range is already free (freed twice, or the wrong size)";
    return api->set_error(RMMJS_ERR_INVALID_ARGUMENT, 0, message.c_str());
  }
  return RMMJS_OK;
} catch (const std::bad_alloc&) {
  return CoreApi()->set_error(RMMJS_ERR_OUT_OF_MEMORY, 0, "PoolMemoryResource: out of host memory");
}

// A number per thread, never reused.
uint64_t PoolMemoryResource::ThisThreadId() {
  static std::atomic<uint64_t> next{1};
  thread_local const uint64_t id = next.fetch_add(1, std::memory_order_relaxed);
  return id;
}

rmmjs_status PoolMemoryResource::CreatedStreamKey(rmmjs_stream stream, StreamKey* key) {
  uint64_t id = 0;
  rmmjs_status status = CoreApi()->stream_id(stream, &id);
  *key = {StreamKind::kCreated, id};
  return status;
}

StreamState& PoolMemoryResource::NewStateOf(StreamKey key, rmmjs_stream stream) {
  auto [at, inserted] = streams_.try_emplace(key);
  if (inserted) {
    const bool legacy = key.kind == StreamKind::kLegacy;
    // Events are recorded on the handle the stream had when first seen (the stream's own while it lives).
    at->second = std::make_unique<StreamState>(legacy ? kDefaultStream : stream, legacy);
    stream_order_.push_back(at->second.get());
  }
  last_key_ = key;
  last_state_ = at->second.get();
  return *last_state_;
}

rmmjs_status PoolMemoryResource::EnsureEvent(StreamState& state) {
  if (state.event != nullptr) return RMMJS_OK;
  DeviceContext context(device_);
  if (context.status() != RMMJS_OK) return context.status();
  return CoreApi()->event_create(&state.event);
}

// RMM's first pass: a block from another stream's list, after `stream` waits on that stream's
// event. Here the best fit over all other lists (RMM takes the first list with any fit).
rmmjs_status PoolMemoryResource::TakeFromOtherStream(Lock& lock, StreamState& own, rmmjs_stream stream,
                                                     size_t size, uintptr_t* out) {
  StreamState* donor = nullptr;
  size_t donor_fit = 0;
  for (StreamState* other : stream_order_) {
    if (other == &own || other->free.empty()) continue;
    const size_t fit = pool::CoalescingFreeBlocks::BestFitSize(other->free, size);
    if (fit != 0 && (donor == nullptr || fit < donor_fit)) {
      donor = other;
      donor_fit = fit;
      if (fit == size) break;
    }
  }
  if (donor == nullptr) return RMMJS_OK;
  if (!stream_ordered_) {
    *out = free_blocks_.TakeBestFit(donor->free, size);
    return RMMJS_OK;
  }
  rmmjs_status status = EnsureEvent(*donor);
  if (status != RMMJS_OK) return status;
  const uintptr_t ptr = free_blocks_.TakeBestFit(donor->free, size);
  const rmmjs_event event = donor->event;
  const rmmjs_stream donor_stream = donor->stream;
  const bool record = donor->lazy;
  // The block is off every list, so the driver calls can run without the lock.
  lock.unlock();
  {
    DeviceContext context(device_);
    status = context.status();
    if (status == RMMJS_OK && record) status = CoreApi()->event_record(event, donor_stream);
    if (status == RMMJS_OK) status = CoreApi()->stream_wait_event(stream, event);
  }
  if (status != RMMJS_OK) {
    lock.lock();
    free_blocks_.Insert(donor->free, ptr, size, *upstream_blocks_.Find(ptr));
    return status;
  }
  *out = ptr;
  return RMMJS_OK;
}

// RMM's second pass: move other streams' whole lists onto this stream's (after waiting on their
// events), so that blocks freed on different streams coalesce, until a block fits. Skipped when
// all free memory together is too small. Runs under the lock: the moved blocks become visible to
// this stream's other users at once, so the waits must be queued first.
rmmjs_status PoolMemoryResource::MergeOtherStreams(StreamState& own, rmmjs_stream stream, size_t size,
                                                   uintptr_t* out) {
  size_t free_bytes = 0;
  for (const StreamState* state : stream_order_) free_bytes += state->free.free_bytes;
  if (free_bytes < size) return RMMJS_OK;
  const rmmjs_core_api* api = CoreApi();
  for (StreamState* other : stream_order_) {
    if (other == &own || other->free.empty()) continue;
    if (stream_ordered_) {
      DeviceContext context(device_);
      rmmjs_status status = context.status();
      if (status == RMMJS_OK) status = EnsureEvent(*other);
      if (status == RMMJS_OK && other->lazy) status = api->event_record(other->event, other->stream);
      if (status == RMMJS_OK) status = api->stream_wait_event(stream, other->event);
      // This stream's event must now cover the moved blocks too, for whoever takes them next.
      if (status == RMMJS_OK && !own.lazy) status = EnsureEvent(own);
      if (status == RMMJS_OK && !own.lazy) status = api->event_record(own.event, stream);
      if (status != RMMJS_OK) return status;
    }
    free_blocks_.MoveAll(other->free, own.free, upstream_blocks_);
    *out = free_blocks_.TakeBestFit(own.free, size);
    if (*out != 0) return RMMJS_OK;
  }
  return RMMJS_OK;
}

size_t PoolMemoryResource::SizeToGrow(size_t size) const {
  if (maximum_pool_size_ == kNoMaximum) return std::max(size, pool_size_);
  const size_t used = pool_size_ + growing_;
  const size_t remaining = maximum_pool_size_ > used ? maximum_pool_size_ - used : 0;
  return size <= remaining ? std::max(size, AlignDown(remaining / 2, kAlignment)) : 0;
}

// Takes more memory from upstream: RMM's try_to_expand. Called with the lock held; the upstream
// calls run without it (the bytes are reserved in growing_ meanwhile).
rmmjs_status PoolMemoryResource::Grow(Lock& lock, StreamState& own, rmmjs_stream stream, size_t size,
                                      uintptr_t* out) {
  std::vector<UpstreamBlock> released;
  std::vector<PendingWork> released_from;
  size_t try_size = SizeToGrow(size);
  if (try_size == 0 && TakeWhollyFreeUpstreamBlocks(size, &released, &released_from)) try_size = SizeToGrow(size);
  if (try_size == 0) {
    return Exceeded(size, "Not enough room to grow, current/max/try size = " + FormatBytes(pool_size_) + ", " +
                              FormatBytes(maximum_pool_size_) + ", " + FormatBytes(size), stream);
  }
  const size_t reserved = try_size;
  growing_ += reserved;
  lock.unlock();

  rmmjs_status status = ReturnToUpstream(released, released_from, stream);
  void* block = nullptr;
  while (status == RMMJS_OK) {
    LogDebug("[A][Stream " + FormatStream(stream) + "][Upstream " + std::to_string(try_size) + "B]");
    status = CoreApi()->allocate(upstream_.get(), try_size, stream, &block);
    if (status == RMMJS_OK || status == RMMJS_ERR_JS_EXCEPTION || try_size == size) break;
    status = RMMJS_OK;
    try_size = std::max(size, AlignDown(try_size / 2, kAlignment));
  }
  const std::string reason = status == RMMJS_OK ? "" : LastErrorMessage();

  lock.lock();
  growing_ -= reserved;
  if (status == RMMJS_ERR_JS_EXCEPTION) return status;
  if (status != RMMJS_OK) return Exceeded(size, reason, stream);
  const UpstreamBlock grown{reinterpret_cast<uintptr_t>(block), try_size};
  upstream_blocks_.Add(grown);
  pool_size_ += grown.size;
  if (grown.size > size) free_blocks_.Insert(own.free, grown.begin + size, grown.size - size, grown);
  *out = grown.begin;
  return RMMJS_OK;
}

// Beyond RMM (rapidsai/rmm#1957): when the maximum leaves no room to grow, upstream blocks that
// are wholly free are given back, if that makes room, and the pool grows by one larger block.
bool PoolMemoryResource::TakeWhollyFreeUpstreamBlocks(size_t size, std::vector<UpstreamBlock>* blocks,
                                                      std::vector<PendingWork>* pending) {
  const size_t used = pool_size_ + growing_;
  if (maximum_pool_size_ == kNoMaximum || size > maximum_pool_size_ || used + size <= maximum_pool_size_) return false;
  const size_t needed = used + size - maximum_pool_size_;
  std::vector<UpstreamBlock> candidates;
  std::vector<pool::StreamFreeList*> ignored;
  for (const UpstreamBlock& block : upstream_blocks_.blocks()) {
    if (free_blocks_.IsWhollyFree(block, &ignored)) candidates.push_back(block);
  }
  // The smallest block that makes room on its own, else the largest blocks until there is room.
  std::sort(candidates.begin(), candidates.end(),
            [](const UpstreamBlock& a, const UpstreamBlock& b) { return a.size < b.size; });
  auto enough = std::find_if(candidates.begin(), candidates.end(),
                             [needed](const UpstreamBlock& block) { return block.size >= needed; });
  if (enough != candidates.end()) {
    blocks->push_back(*enough);
  } else {
    size_t found = 0;
    for (auto block = candidates.rbegin(); block != candidates.rend() && found < needed; ++block) {
      blocks->push_back(*block);
      found += block->size;
    }
    if (found < needed) {
      blocks->clear();
      return false;
    }
  }
  std::vector<pool::StreamFreeList*> lists;
  for (const UpstreamBlock& block : *blocks) free_blocks_.IsWhollyFree(block, &lists);
  for (const UpstreamBlock& block : *blocks) {
    free_blocks_.RemoveAllIn(block);
    upstream_blocks_.Remove(block.begin);
    pool_size_ -= block.size;
  }
  for (pool::StreamFreeList* list : lists) {
    const StreamState& state = *list->stream;
    if (state.lazy) pending->push_back({state.stream, nullptr});
    else if (state.event != nullptr) pending->push_back({state.stream, state.event});
  }
  return true;
}

rmmjs_status PoolMemoryResource::ReturnToUpstream(const std::vector<UpstreamBlock>& blocks,
                                                  const std::vector<PendingWork>& pending, rmmjs_stream stream) {
  if (blocks.empty()) return RMMJS_OK;
  if (stream_ordered_) {
    // The blocks are on no list any more: only the work queued before their frees is waited for.
    DeviceContext context(device_);
    if (context.status() != RMMJS_OK) return context.status();
    for (const PendingWork& work : pending) {
      rmmjs_status status = work.event == nullptr ? CoreApi()->stream_synchronize(work.stream)
                                                  : CoreApi()->event_synchronize(work.event);
      if (status != RMMJS_OK) return status;
    }
  }
  for (const UpstreamBlock& block : blocks) {
    LogDebug("[D][Stream " + FormatStream(stream) + "][Upstream " + std::to_string(block.size) + "B]");
    rmmjs_status status = CoreApi()->deallocate(upstream_.get(), reinterpret_cast<void*>(block.begin), block.size, stream);
    if (status != RMMJS_OK) return status;
  }
  return RMMJS_OK;
}

// RMM's try_to_expand failure: logged at error level, then OutOfMemoryError.
rmmjs_status PoolMemoryResource::Exceeded(size_t size, const std::string& reason, rmmjs_stream stream) {
  if (CoreApi()->should_log(RMMJS_LOG_ERROR)) {
    CoreApi()->log(RMMJS_LOG_ERROR, ("[A][Stream " + FormatStream(stream) + "][Upstream " + std::to_string(size) +
                                     "B][FAILURE maximum pool size exceeded: " + reason + "]").c_str());
  }
  const std::string message = "Maximum pool size exceeded (failed to allocate " + FormatBytes(size) + "): " + reason;
  return CoreApi()->set_error(RMMJS_ERR_OUT_OF_MEMORY, 0, message.c_str());
}

}  // namespace rmmjs
