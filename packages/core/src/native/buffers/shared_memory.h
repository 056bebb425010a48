// Memory with more than one owner: a DeviceBuffer's memory once native code holds it too (a DLPack
// consumer), or memory a buffer adopted. Each owner has a share (an rmmjs_memory of its own, see
// rmmjs/abi.h); the last share released gives the memory back, on whichever thread that is.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "rmmjs/abi.h"
#include "runtime/stream.h"

namespace rmmjs {

class SharedMemory {
 public:
  // Memory that mr handed out: deallocated there on stream once every share is released (mr and
  // stream are retained until then).
  static SharedMemory* Owning(rmmjs_resource* mr, StreamObject* stream, void* ptr, size_t bytes, int device);
  // Memory someone else lent: released once every share is.
  static SharedMemory* Wrapping(rmmjs_memory* memory);
  // The SharedMemory a share belongs to, or nullptr for memory that is no share.
  static SharedMemory* Of(const rmmjs_memory* memory);

  // A new share of ptr .. ptr + bytes (within the memory), to be released once. It carries
  // RMMJS_MEMORY_THREAD_BOUND when the memory goes back to a thread-bound resource.
  rmmjs_memory* NewShare(void* ptr, size_t bytes, int device);

 private:
  SharedMemory() = default;
  ~SharedMemory() = default;
  static void ReleaseShare(rmmjs_memory* share);
  void Release();

  std::atomic<int64_t> shares_{0};
  rmmjs_memory* lent_ = nullptr;  // Wrapping
  rmmjs_resource* mr_ = nullptr;  // Owning
  StreamObject* stream_ = nullptr;
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
  int device_ = 0;
  uint32_t flags_ = 0;  // RMMJS_MEMORY_* of every share
};

}  // namespace rmmjs
