// The event that orders the reuse of memory freed on one stream, where RMM's arena synchronises the
// stream instead: memory that leaves the stream's arena (a large block, a superblock given back)
// carries the event, and a stream that takes it waits on the event first (rmmjs/stream_ordered_resource.hpp
// orders its free lists the same way). One event per stream, recorded again at each free: a wait
// covers every free recorded before it, and the freeing stream's own later work orders nothing
// wrongly (a stream reuses its own frees without a wait). Thread-safe.
//
// The legacy default stream is never destroyed, so its event is recorded only when another stream
// is about to take its memory. A created stream may be destroyed and the per-thread default stream
// is only the owning thread's to name, so theirs is recorded at each free, while the stream exists.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "rmmjs/abi.h"
#include "rmmjs/status.hpp"
#include "rmmjs/stream_key.hpp"

namespace rmmjs::arena {

class StreamEvent {
 public:
  StreamEvent(const StreamKey& key, int32_t device) : key_(key), device_(device) {}
  ~StreamEvent();  // the driver releases an event still in flight once it completes
  StreamEvent(const StreamEvent&) = delete;
  StreamEvent& operator=(const StreamEvent&) = delete;

  const StreamKey& key() const { return key_; }

  // A free on `stream` (this event's stream, in the device's context): records the event, except on
  // the legacy default stream.
  rmmjs_status RecordFree(rmmjs_stream stream);

  // Makes `waiter` (another stream, in the device's context) wait for the frees on this stream.
  rmmjs_status OrderBefore(rmmjs_stream waiter);

  // The calling thread waits for the frees on this stream (in the device's context).
  rmmjs_status Synchronize();

 private:
  bool lazy() const { return key_.kind == StreamKind::kLegacy; }
  rmmjs_status Created(rmmjs_event* event);

  const StreamKey key_;
  const int32_t device_;
  std::mutex create_mutex_;
  std::atomic<rmmjs_event> event_{nullptr};
  std::atomic<bool> recorded_{false};
};

// The streams whose frees of a superblock's memory may still be in flight: whoever takes the memory
// on another stream waits for them first. Usually one stream, kept without an allocation.
class FreedOn {
 public:
  FreedOn() = default;
  explicit FreedOn(std::shared_ptr<StreamEvent> event) : first_(std::move(event)) {}

  bool empty() const { return first_ == nullptr; }
  void Add(const std::shared_ptr<StreamEvent>& event);  // may throw std::bad_alloc
  void Merge(const FreedOn& other);                     // may throw std::bad_alloc
  void Clear() {
    first_.reset();
    rest_.clear();
  }

  template <class Fn>
  rmmjs_status ForEach(Fn&& fn) const {
    if (first_ != nullptr) RMMJS_TRY(fn(*first_));
    for (const auto& event : rest_) RMMJS_TRY(fn(*event));
    return RMMJS_OK;
  }

  // Makes `stream` (key `taker`) wait for the frees on every other stream; where a wait cannot be
  // queued, the calling thread waits for that stream's frees instead (in `device`'s context).
  rmmjs_status OrderBefore(const StreamKey& taker, rmmjs_stream stream, int32_t device) const;

  // The calling thread waits for the frees on every stream (in `device`'s context).
  rmmjs_status Synchronize(int32_t device) const;

 private:
  std::shared_ptr<StreamEvent> first_;
  std::vector<std::shared_ptr<StreamEvent>> rest_;
};

}  // namespace rmmjs::arena
