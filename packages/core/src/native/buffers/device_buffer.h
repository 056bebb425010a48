// RMM's device_buffer: untyped, uninitialised, stream-ordered device memory that remembers the
// resource it came from (kept alive) and frees `capacity` bytes there on its stream.
//
// Allocating and freeing may run JavaScript (a resource flagged RMMJS_RESOURCE_CALLS_JS), and that
// JavaScript may use this same buffer. While an operation can run JavaScript, or an asynchronous
// copy is in flight, the buffer is pinned: its memory stays where it is (a move is refused) and a
// free() is deferred to the end of the operation, which then reports RMMJS_ERR_DISPOSED.
//
// A buffer's memory may also be someone else's (rmmjs/abi.h, rmmjs_memory): memory a buffer adopted
// (a DLPack capsule, a CUDA IPC mapping) is released instead of deallocated, and memory that native
// code holds (Hold) stays until the last holder lets go, whatever the buffer does meanwhile. Guards
// (rmmjs_buffer_guard) may refuse to let the memory go.
#pragma once

#include <cstddef>
#include <vector>

#include "rmmjs/abi.h"
#include "rmmjs/resource.hpp"
#include "runtime/stream.h"

namespace rmmjs {

class DeviceBuffer {
 public:
  // Allocates size bytes from mr (the buffer takes the reference) on stream (retained).
  static rmmjs_status Create(ResourceRef mr, StreamObject* stream, size_t size, DeviceBuffer** out);
  // A buffer over `memory` (taken: released when the buffer lets go of it). Copies of it and memory
  // it grows into come from mr, on stream (both retained).
  static DeviceBuffer* Adopt(rmmjs_resource* mr, StreamObject* stream, rmmjs_memory* memory);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  // Returns the memory and releases the resource and the stream (deferred while pinned). When the
  // resource fails to free it, the buffer still owns its memory and is not freed (a retry may
  // work), except for RMMJS_ERR_LOGIC: the resource says the memory is not its own (a double or
  // foreign free), which nothing can fix, and the buffer forgets it.
  rmmjs_status Free();
  // A share of the buffer's memory (its first size() bytes) for native code, released once: the
  // memory stays valid until then, also after Free() or a move.
  rmmjs_status Hold(rmmjs_memory** out);
  // Takes the guard; it is asked before the memory is given back or moved, and destroyed with it.
  void AddGuard(rmmjs_buffer_guard* guard) { guards_.push_back(guard); }
  // True once Free() succeeded, or was deferred: the buffer may no longer be used.
  bool freed() const { return freed_; }

  void* data() const { return data_; }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  int device() const { return device_; }
  rmmjs_resource* resource() const { return mr_; }
  // Whether the memory goes back to a resource that frees it through JavaScript, on its thread only:
  // the buffer's own (RMMJS_RESOURCE_THREAD_BOUND) or, for memory someone else owns, the owner's.
  bool thread_bound() const {
    return (mr_ != nullptr && (mr_->flags & RMMJS_RESOURCE_THREAD_BOUND) != 0) ||
           (owner_ != nullptr && (owner_->flags & RMMJS_MEMORY_THREAD_BOUND) != 0);
  }
  StreamObject* stream() const { return stream_; }

  // Both adopt `stream` as the buffer's stream, as RMM's do.
  rmmjs_status Resize(size_t new_size, StreamObject* stream);
  rmmjs_status Reserve(size_t new_capacity, StreamObject* stream);

  // Copies are issued in the stream's context (the buffer's for the default streams), at `offset`
  // bytes into the buffer. The host copies are synchronous (they wait for the stream: the host
  // memory belongs to JavaScript).
  rmmjs_status CopyFromHost(const void* src, size_t bytes, const StreamObject* stream, size_t offset = 0);
  rmmjs_status CopyToHost(void* dst, size_t bytes, const StreamObject* stream, size_t offset = 0);
  // Stream-ordered copy from any device address.
  rmmjs_status CopyFromDevice(const void* src, size_t bytes, const StreamObject* stream);
  // A deep copy on the same resource and stream.
  rmmjs_status Copy(DeviceBuffer** out);
  rmmjs_status Prefetch(int device, const StreamObject* stream);

  // An asynchronous copy pins the buffer from BeginAsync to EndAsync (which completes a deferred
  // free). ClearPins() drops every pin, for an environment that ends with copies abandoned (the
  // destructor then frees).
  void BeginAsync() { ++pending_async_; }
  rmmjs_status EndAsync();
  int pending_async() const { return pending_async_; }
  bool pinned() const { return pending_async_ > 0 || busy_ > 0; }
  void ClearPins() { pending_async_ = busy_ = 0; }

 private:
  class Busy;

  DeviceBuffer(ResourceRef mr, StreamObject* stream);
  rmmjs_status Reallocate(size_t new_capacity, StreamObject* stream);
  rmmjs_status MoveTo(size_t new_capacity, StreamObject* stream);
  rmmjs_status Deallocate();
  // Gives memory of this buffer back: releases it when someone else owns it (owner), else
  // deallocates it from the resource.
  rmmjs_status GiveBack(void* data, size_t capacity, rmmjs_memory* owner);
  rmmjs_status CheckGuards() const;
  void DestroyGuards();
  rmmjs_status ReturnMemory();
  rmmjs_status Unpinned();
  rmmjs_status FreedWhile(const char* operation) const;
  void SetStream(StreamObject* stream);

  rmmjs_resource* mr_;    // one reference (null once the memory is returned)
  StreamObject* stream_;  // one reference (null once the memory is returned)
  int device_;
  void* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
  bool freed_ = false;
  int pending_async_ = 0;  // asynchronous copies in flight
  int busy_ = 0;           // operations that may run JavaScript
  // The memory's owner when that is not mr_ (adopted memory, or a share once something holds it).
  rmmjs_memory* owner_ = nullptr;
  std::vector<rmmjs_buffer_guard*> guards_;  // owned
};

}  // namespace rmmjs
