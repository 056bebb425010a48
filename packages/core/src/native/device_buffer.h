// RMM's device_buffer: untyped, uninitialised, stream-ordered device memory that remembers the
// resource it came from (kept alive) and frees `capacity` bytes there on its stream.
#pragma once

#include <cstddef>

#include "rmmjs/abi.h"
#include "stream.h"

namespace rmmjs {

class DeviceBuffer {
 public:
  // Allocates size bytes from mr on stream (both retained); copies host_data in when given.
  static rmmjs_status Create(rmmjs_resource* mr, StreamObject* stream, size_t size,
                             const void* host_data, DeviceBuffer** out);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  // Deallocates now (or, with asynchronous copies in flight, when the last one ends) and
  // releases the resource and the stream. Afterwards freed() is true.
  rmmjs_status Free();
  bool freed() const { return freed_; }

  void* data() const { return data_; }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  int device() const { return device_; }
  rmmjs_resource* resource() const { return mr_; }
  StreamObject* stream() const { return stream_; }

  // Both adopt `stream` as the buffer's stream, as RMM's do.
  rmmjs_status Resize(size_t new_size, StreamObject* stream);
  rmmjs_status Reserve(size_t new_capacity, StreamObject* stream);

  // Copies are issued in the stream's context (the buffer's for the default streams).
  // Synchronous host copies (they wait for the stream: the host memory belongs to JavaScript).
  rmmjs_status CopyFromHost(const void* src, size_t bytes, const StreamObject* stream);
  rmmjs_status CopyToHost(void* dst, size_t bytes, const StreamObject* stream);
  // Stream-ordered copy from any device address.
  rmmjs_status CopyFromDevice(const void* src, size_t bytes, const StreamObject* stream);
  // A deep copy on the same resource and stream.
  rmmjs_status Copy(DeviceBuffer** out);
  rmmjs_status Prefetch(int device, const StreamObject* stream);

  // Asynchronous copies pin the buffer: Free waits for them, Resize/Reserve refuse.
  void BeginAsync() { ++pending_async_; }
  rmmjs_status EndAsync();
  int pending_async() const { return pending_async_; }

 private:
  DeviceBuffer(rmmjs_resource* mr, StreamObject* stream);
  rmmjs_status Reallocate(size_t new_capacity, StreamObject* stream);
  rmmjs_status Deallocate();
  void SetStream(StreamObject* stream);

  rmmjs_resource* mr_;     // one reference (null once freed)
  StreamObject* stream_;   // one reference (null once freed)
  int device_;
  void* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
  bool freed_ = false;
  bool free_deferred_ = false;
  int pending_async_ = 0;
};

}  // namespace rmmjs
