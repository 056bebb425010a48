// Refcounted stream objects behind JavaScript's Stream (a DeviceBuffer keeps its stream alive),
// and the stream/event helpers of the C ABI. In host mode streams are tokens and every
// operation completes at once.
#pragma once

#include <atomic>
#include <cstdint>

#include "rmmjs/abi.h"

namespace rmmjs {

class StreamObject {
 public:
  // A new stream on the current device (nonBlocking: does not sync with the legacy stream).
  static rmmjs_status Create(bool non_blocking, int priority, StreamObject** out);
  // A stream this object does not own (DEFAULT, LEGACY, PER_THREAD, or a foreign handle);
  // `current` is the current device.
  static StreamObject* Borrow(rmmjs_stream handle, int current);

  void Retain() { refs_.fetch_add(1, std::memory_order_relaxed); }
  void Release();

  rmmjs_stream handle() const { return handle_; }
  // The device whose context work on this stream must be issued in: its own, or `fallback`
  // (the caller's device) for the default streams, which belong to whichever context is current.
  int ContextDevice(int fallback) const { return handle_ <= 2 ? fallback : device(); }
  // The device the stream belongs to. A borrowed stream's is its context's, asked of the driver
  // (cuStreamGetCtx) when first needed and kept: a handle that only ever serves as a token (for a
  // resource that never gives it to the driver) is never dereferenced. Where the driver cannot
  // tell (a destroyed stream), the device current at the borrow; the work itself then fails.
  int device() const {
    int known = device_.load(std::memory_order_relaxed);
    return known >= 0 ? known : AskDevice();
  }
  bool owned() const { return owned_; }
  int priority() const { return priority_; }

 private:
  StreamObject(rmmjs_stream handle, int device, bool owned, int priority)
      : handle_(handle), device_(device), borrowed_on_(device), owned_(owned), priority_(priority) {}
  int AskDevice() const;
  std::atomic<int64_t> refs_{1};
  rmmjs_stream handle_;
  mutable std::atomic<int> device_;  // -1 until asked of the driver (a borrowed stream)
  int borrowed_on_;                  // the current device when borrowed
  bool owned_;
  int priority_;
};

// Default-stream handles as the driver API spells them.
constexpr rmmjs_stream kDefaultStream = 0;
constexpr rmmjs_stream kLegacyStream = 1;
constexpr rmmjs_stream kPerThreadStream = 2;

rmmjs_status StreamSynchronize(rmmjs_stream stream);
rmmjs_status StreamId(rmmjs_stream stream, uint64_t* id);
rmmjs_status StreamCheckDevice(rmmjs_stream stream, int32_t device);  // see abi.h
rmmjs_status DeviceSynchronize(int device);
rmmjs_status StreamSynchronizeOnDevice(rmmjs_stream stream, int device);
rmmjs_status EventCreate(rmmjs_event* out);
rmmjs_status EventDestroy(rmmjs_event event);
rmmjs_status EventRecord(rmmjs_event event, rmmjs_stream stream);
rmmjs_status EventSynchronize(rmmjs_event event);
rmmjs_status StreamWaitEvent(rmmjs_stream stream, rmmjs_event event);

}  // namespace rmmjs
