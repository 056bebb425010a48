#include "stream_event.h"

#include <algorithm>

#include "rmmjs/resource.hpp"

namespace rmmjs::arena {

StreamEvent::~StreamEvent() {
  if (rmmjs_event event = event_.load()) {
    DeviceContext context(device_);
    CoreApi()->event_destroy(event);
  }
}

rmmjs_status StreamEvent::Created(rmmjs_event* event) {
  *event = event_.load(std::memory_order_acquire);
  if (*event != nullptr) return RMMJS_OK;
  std::lock_guard<std::mutex> lock(create_mutex_);
  *event = event_.load(std::memory_order_relaxed);
  if (*event != nullptr) return RMMJS_OK;
  RMMJS_TRY(CoreApi()->event_create(event));
  event_.store(*event, std::memory_order_release);
  return RMMJS_OK;
}

rmmjs_status StreamEvent::RecordFree(rmmjs_stream stream) {
  if (lazy()) return RMMJS_OK;
  rmmjs_event event = nullptr;
  RMMJS_TRY(Created(&event));
  RMMJS_TRY(CoreApi()->event_record(event, stream));
  recorded_.store(true, std::memory_order_release);
  return RMMJS_OK;
}

rmmjs_status StreamEvent::OrderBefore(rmmjs_stream waiter) {
  rmmjs_event event = nullptr;
  RMMJS_TRY(Created(&event));
  // The legacy default stream's frees are all queued before this record.
  if (lazy()) RMMJS_TRY(CoreApi()->event_record(event, 0));
  return CoreApi()->stream_wait_event(waiter, event);
}

rmmjs_status StreamEvent::Synchronize() {
  if (lazy()) return CoreApi()->stream_synchronize(0);
  rmmjs_event event = event_.load(std::memory_order_acquire);
  if (event == nullptr || !recorded_.load(std::memory_order_acquire)) return RMMJS_OK;
  return CoreApi()->event_synchronize(event);
}

void FreedOn::Add(const std::shared_ptr<StreamEvent>& event) {
  if (event == nullptr || event == first_) return;
  if (first_ == nullptr) {
    first_ = event;
  } else if (std::find(rest_.begin(), rest_.end(), event) == rest_.end()) {
    rest_.push_back(event);
  }
}

void FreedOn::Merge(const FreedOn& other) {
  Add(other.first_);
  for (const auto& event : other.rest_) Add(event);
}

rmmjs_status FreedOn::OrderBefore(const StreamKey& taker, rmmjs_stream stream, int32_t device) const {
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

rmmjs_status FreedOn::Synchronize(int32_t device) const {
  if (empty()) return RMMJS_OK;
  DeviceContext context(device);
  RMMJS_TRY(context.status());
  return ForEach([](StreamEvent& event) { return event.Synchronize(); });
}

}  // namespace rmmjs::arena
