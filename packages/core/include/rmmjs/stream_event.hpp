// The event that orders the reuse of memory freed on one stream, for the stream-ordered resources
// (rmmjs/stream_ordered_resource.hpp, the arena): memory freed on stream A is reused on A at once,
// and on stream B after B waits on A's event. One event per stream, recorded again at each free: a
// wait covers every free recorded before it, and the freeing stream's own later work orders nothing
// wrongly (a stream reuses its own frees without a wait). Thread-safe.
//
// The legacy default stream is never destroyed, so its event is recorded only when another stream
// is about to take its memory (lazily). A created stream may be destroyed and the per-thread default
// stream is only the owning thread's to name, so theirs is recorded at each free, while the stream
// exists.
//
// An event records only on a stream of its own context (cuEventRecord), and a resource's events are
// of its device's primary context: a resource checks each created stream once, with CheckStream,
// when it first meets it (before it keeps any state for it), and refuses a stream of another
// context then, before anything changes.
#ifndef RMMJS_STREAM_EVENT_HPP
#define RMMJS_STREAM_EVENT_HPP

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "rmmjs/abi.h"
#include "rmmjs/resource.hpp"
#include "rmmjs/status.hpp"
#include "rmmjs/stream_key.hpp"

namespace rmmjs {

class StreamEvent {
 public:
  // RMMJS_OK when a resource of `device` may order its memory on `stream` (key `key`) with events:
  // the default streams and host mode always; a created stream when it belongs to the device's
  // primary context. Otherwise RMMJS_ERR_INVALID_ARGUMENT, with a message naming both devices.
  // A driver call for a created stream: call it once per stream, without a lock held.
  static rmmjs_status CheckStream(const StreamKey& key, rmmjs_stream stream, int32_t device, bool cuda) {
    if (!cuda || key.kind != StreamKind::kCreated) return RMMJS_OK;
    return CoreApi()->stream_check_device(stream, device);
  }

  // The event of the stream with `key`, for a resource of `device` (created on first use).
  StreamEvent(const StreamKey& key, int32_t device) : key_(key), device_(device) {}
  // The driver releases an event still in flight once it completes.
  ~StreamEvent() {
    if (rmmjs_event event = event_.load()) {
      DeviceContext context(device_);
      CoreApi()->event_destroy(event);
    }
  }
  StreamEvent(const StreamEvent&) = delete;
  StreamEvent& operator=(const StreamEvent&) = delete;

  const StreamKey& key() const { return key_; }
  // The legacy default stream's: recorded when another stream is about to take its memory.
  bool lazy() const { return key_.kind == StreamKind::kLegacy; }
  // It was recorded: a stream taking memory freed before that record waits on it.
  bool recorded() const { return recorded_.load(std::memory_order_acquire); }

  // The calls below run in the device's context (the caller holds a DeviceContext): the event is
  // created there on first use.

  // Records the event on `stream`: this event's stream (the legacy default stream for a lazy one).
  rmmjs_status Record(rmmjs_stream stream) {
    rmmjs_event event = nullptr;
    RMMJS_TRY(Created(&event));
    RMMJS_TRY(CoreApi()->event_record(event, stream));
    recorded_.store(true, std::memory_order_release);
    return RMMJS_OK;
  }

  // A free on `stream` (this event's stream): records the event, except on the legacy default stream.
  rmmjs_status RecordFree(rmmjs_stream stream) { return lazy() ? RMMJS_OK : Record(stream); }

  // Makes `waiter` wait on the event as last recorded.
  rmmjs_status Wait(rmmjs_stream waiter) {
    rmmjs_event event = nullptr;
    RMMJS_TRY(Created(&event));
    return CoreApi()->stream_wait_event(waiter, event);
  }

  // Makes `waiter` (another stream) wait for every free on this stream so far.
  rmmjs_status OrderBefore(rmmjs_stream waiter) {
    // The legacy default stream's frees are all queued before this record.
    if (lazy()) RMMJS_TRY(Record(0));
    return Wait(waiter);
  }

  // The calling thread waits for the frees on this stream.
  rmmjs_status Synchronize() {
    if (lazy()) return CoreApi()->stream_synchronize(0);
    rmmjs_event event = event_.load(std::memory_order_acquire);
    if (event == nullptr || !recorded()) return RMMJS_OK;
    return CoreApi()->event_synchronize(event);
  }

 private:
  rmmjs_status Created(rmmjs_event* event) {
    *event = event_.load(std::memory_order_acquire);
    if (*event != nullptr) return RMMJS_OK;
    std::lock_guard<std::mutex> lock(create_mutex_);
    *event = event_.load(std::memory_order_relaxed);
    if (*event != nullptr) return RMMJS_OK;
    RMMJS_TRY(CoreApi()->event_create(event));
    event_.store(*event, std::memory_order_release);
    return RMMJS_OK;
  }

  const StreamKey key_;
  const int32_t device_;
  std::mutex create_mutex_;
  std::atomic<rmmjs_event> event_{nullptr};
  std::atomic<bool> recorded_{false};
};

// The streams whose frees of some memory may still be in flight: whoever takes the memory on
// another stream waits for them first. Usually one stream, kept without an allocation.
class FreedOn {
 public:
  FreedOn() = default;
  explicit FreedOn(std::shared_ptr<StreamEvent> event) : first_(std::move(event)) {}

  bool empty() const { return first_ == nullptr; }
  // Whether every free it lists was on the stream with this key (or there are none): a taker on
  // that stream has nothing to wait for.
  bool OnlyOn(const StreamKey& key) const {
    if (first_ != nullptr && !(first_->key() == key)) return false;
    for (const auto& event : rest_) {
      if (!(event->key() == key)) return false;
    }
    return true;
  }
  void Add(const std::shared_ptr<StreamEvent>& event) {  // may throw std::bad_alloc
    if (event == nullptr || event == first_) return;
    if (first_ == nullptr) {
      first_ = event;
    } else if (std::find(rest_.begin(), rest_.end(), event) == rest_.end()) {
      rest_.push_back(event);
    }
  }
  void Merge(const FreedOn& other) {  // may throw std::bad_alloc
    Add(other.first_);
    for (const auto& event : other.rest_) Add(event);
  }
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
  rmmjs_status OrderBefore(const StreamKey& taker, rmmjs_stream stream, int32_t device) const {
    bool others = false;
    ForEach([&](const StreamEvent& event) {
      others = others || !(event.key() == taker);
      return RMMJS_OK;
    });
    if (!others) return RMMJS_OK;  // its own frees: in stream order already
    DeviceContext context(device);
    RMMJS_TRY(context.status());
    return ForEach([&](StreamEvent& event) {
      if (event.key() == taker) return RMMJS_OK;
      if (event.OrderBefore(stream) == RMMJS_OK) return RMMJS_OK;
      return event.Synchronize();  // nothing can be queued: wait here instead
    });
  }

  // The calling thread waits for the frees on every stream (in `device`'s context).
  rmmjs_status Synchronize(int32_t device) const {
    if (empty()) return RMMJS_OK;
    DeviceContext context(device);
    RMMJS_TRY(context.status());
    return ForEach([](StreamEvent& event) { return event.Synchronize(); });
  }

 private:
  std::shared_ptr<StreamEvent> first_;
  std::vector<std::shared_ptr<StreamEvent>> rest_;
};

}  // namespace rmmjs

#endif  // RMMJS_STREAM_EVENT_HPP
