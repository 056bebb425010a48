// RMM's pool_memory_resource: a coalescing best-fit suballocator over blocks taken from an
// upstream resource, with stream-ordered free lists (stream_ordered_memory_resource).
//
// Memory freed on stream A is reused on A at once, and on stream B after B waits on A's event.
// A free on a created stream or on the per-thread default stream records that stream's event at
// once, as RMM does, because the stream may be destroyed before another stream takes the block;
// the legacy default stream cannot be destroyed, so its event is recorded only when another
// stream takes its blocks (no driver call on a default-stream free).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>  // std::unique_lock
#include <string>
#include <unordered_map>
#include <vector>

#include "coalescing_free_blocks.h"
#include "spin_lock.h"
#include "rmmjs/abi.h"
#include "rmmjs/resource.hpp"

namespace rmmjs {
namespace pool {

// The free list of one stream and the event other streams wait on before taking from it.
struct StreamState {
  StreamState(rmmjs_stream stream, bool lazy) : stream(stream), lazy(lazy), free(this) {}
  rmmjs_stream stream;  // the handle events are recorded on
  bool lazy;            // the legacy default stream: record when another stream takes blocks
  rmmjs_event event = nullptr;
  StreamFreeList free;
};

}  // namespace pool

class PoolMemoryResource {
 public:
  static constexpr const char* kTypeName = "PoolMemoryResource";
  static constexpr size_t kNoMaximum = SIZE_MAX;

  // Sizes as the user gave them; Validate first.
  PoolMemoryResource(ResourceRef upstream, int32_t device, size_t initial_pool_size, size_t maximum_pool_size);
  ~PoolMemoryResource();
  PoolMemoryResource(const PoolMemoryResource&) = delete;
  PoolMemoryResource& operator=(const PoolMemoryResource&) = delete;

  // RMM's configuration checks (ERR_RMM_LOGIC with RMM's sentences).
  static rmmjs_status Validate(size_t initial_pool_size, size_t maximum_pool_size);
  // Half the free memory of device (RMM's default), or a fixed size in host mode; at most maximum.
  static rmmjs_status DefaultInitialPoolSize(int32_t device, size_t maximum_pool_size, size_t* out);

  // Takes the initial pool from upstream.
  rmmjs_status Init(rmmjs_resource* self);
  rmmjs_status Allocate(size_t bytes, rmmjs_stream stream, void** out);
  rmmjs_status Deallocate(void* ptr, size_t bytes, rmmjs_stream stream);
  rmmjs_resource* Upstream() const { return upstream_.get(); }

  // Bytes currently taken from upstream.
  size_t pool_size();

 private:
  using Lock = std::unique_lock<pool::SpinLock>;
  // Which free list a stream's memory goes to: 0 and CU_STREAM_LEGACY are one stream; the
  // per-thread default stream is one stream per thread; other streams are told apart by their
  // stream id (cuStreamGetId), since a destroyed stream's handle can come back for a new stream.
  enum class StreamKind : uint8_t { kLegacy, kPerThread, kCreated };
  struct StreamKey {
    StreamKind kind;
    uint64_t id;  // the thread's number (kPerThread) or the stream id (kCreated)
    bool operator==(const StreamKey& other) const { return kind == other.kind && id == other.id; }
  };
  struct StreamKeyHash {
    size_t operator()(const StreamKey& key) const { return std::hash<uint64_t>()(key.id * 3 + static_cast<uint64_t>(key.kind)); }
  };

  // The key of stream (a driver call for a created stream; made without the lock).
  rmmjs_status KeyOf(rmmjs_stream stream, StreamKey* key) const {
    if (stream <= 1) *key = {StreamKind::kLegacy, 0};
    else if (stream == 2) *key = {StreamKind::kPerThread, ThisThreadId()};
    else if (!stream_ordered_) *key = {StreamKind::kCreated, stream};
    else return CreatedStreamKey(stream, key);
    return RMMJS_OK;
  }
  static rmmjs_status CreatedStreamKey(rmmjs_stream stream, StreamKey* key);
  static uint64_t ThisThreadId();
  // The state of the stream with this key, created on first use. Under the lock.
  pool::StreamState& StateOf(StreamKey key, rmmjs_stream stream) {
    if (last_state_ != nullptr && key == last_key_) return *last_state_;
    return NewStateOf(key, stream);
  }
  pool::StreamState& NewStateOf(StreamKey key, rmmjs_stream stream);
  rmmjs_status EnsureEvent(pool::StreamState& state);
  rmmjs_status TakeFromOtherStream(Lock& lock, pool::StreamState& own, rmmjs_stream stream, size_t size,
                                   uintptr_t* out);
  rmmjs_status MergeOtherStreams(pool::StreamState& own, rmmjs_stream stream, size_t size, uintptr_t* out);
  rmmjs_status Grow(Lock& lock, pool::StreamState& own, rmmjs_stream stream, size_t size, uintptr_t* out);
  size_t SizeToGrow(size_t size) const;
  // Work that may still use released blocks: a stream to synchronize, or an event.
  struct PendingWork {
    rmmjs_stream stream;
    rmmjs_event event;  // nullptr: synchronize stream
  };
  bool TakeWhollyFreeUpstreamBlocks(size_t size, std::vector<pool::UpstreamBlock>* blocks,
                                    std::vector<PendingWork>* pending);
  rmmjs_status ReturnToUpstream(const std::vector<pool::UpstreamBlock>& blocks,
                                const std::vector<PendingWork>& pending, rmmjs_stream stream);
  rmmjs_status Exceeded(size_t size, const std::string& reason, rmmjs_stream stream);

  ResourceRef upstream_;
  int32_t device_;
  size_t initial_pool_size_;
  size_t maximum_pool_size_;
  bool stream_ordered_;  // false in host mode, where all work is synchronous and events are no-ops

  pool::SpinLock mutex_;
  size_t pool_size_ = 0;  // committed upstream bytes
  size_t growing_ = 0;    // bytes being requested from upstream right now (outside the lock)
  pool::UpstreamBlocks upstream_blocks_;
  pool::CoalescingFreeBlocks free_blocks_;
  std::unordered_map<StreamKey, std::unique_ptr<pool::StreamState>, StreamKeyHash> streams_;
  std::vector<pool::StreamState*> stream_order_;  // creation order, for deterministic searches
  StreamKey last_key_{StreamKind::kLegacy, 0};
  pool::StreamState* last_state_ = nullptr;
};

}  // namespace rmmjs
