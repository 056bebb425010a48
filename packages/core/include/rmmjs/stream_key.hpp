// Which stream a resource's per-stream state (a free list, an arena) belongs to. Streams are told
// apart as abi.h says: 0 and CU_STREAM_LEGACY are one stream (the legacy default stream),
// CU_STREAM_PER_THREAD is one stream per thread, and other streams are known by their stream id,
// never by their handle: a destroyed stream's handle can come back for a new stream, its id cannot.
#ifndef RMMJS_STREAM_KEY_HPP
#define RMMJS_STREAM_KEY_HPP

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>

#include "rmmjs/abi.h"
#include "rmmjs/resource.hpp"
#include "rmmjs/status.hpp"

namespace rmmjs {

enum class StreamKind : uint8_t { kLegacy, kPerThread, kCreated };

struct StreamKey {
  StreamKind kind;
  uint64_t id;  // 0 (kLegacy), the thread's number (kPerThread), the stream id (kCreated; the handle in host mode)
  bool operator==(const StreamKey& other) const { return kind == other.kind && id == other.id; }
};

struct StreamKeyHash {
  size_t operator()(const StreamKey& key) const {
    return std::hash<uint64_t>()(key.id * 3 + static_cast<uint64_t>(key.kind));
  }
};

// A number per thread, never reused.
inline uint64_t ThisThreadNumber() {
  static std::atomic<uint64_t> next{1};
  thread_local const uint64_t number = next.fetch_add(1, std::memory_order_relaxed);
  return number;
}

// The key of `stream` on the calling thread. `cuda`: the resource runs on the driver (in host mode
// no stream is ever in flight, and the handle is the key). For a created stream on the driver this
// is a driver call (cuStreamGetId): make it without holding a lock.
inline rmmjs_status StreamKeyOf(rmmjs_stream stream, bool cuda, StreamKey* key) {
  if (IsLegacyDefaultStream(stream)) {
    *key = {StreamKind::kLegacy, 0};
  } else if (IsPerThreadDefaultStream(stream)) {
    *key = {StreamKind::kPerThread, ThisThreadNumber()};
  } else if (!cuda) {
    *key = {StreamKind::kCreated, stream};
  } else {
    uint64_t id = 0;
    RMMJS_TRY(CoreApi()->stream_id(stream, &id));
    *key = {StreamKind::kCreated, id};
  }
  return RMMJS_OK;
}

}  // namespace rmmjs

#endif  // RMMJS_STREAM_KEY_HPP
