// The native side of JavaScript DeviceBuffers. A handle lives until its JS object is collected
// (device-buffer.ts's FinalizationRegistry calls bufferFinalize) or its environment ends (a
// cleanup hook frees what is left, so a worker that exits returns its memory). This is cheaper
// than a napi finalizer per buffer, which costs a weak global handle and a tracker entry.
#pragma once

#include <node_api.h>

#include <cstdint>

#include "device_buffer.h"

namespace rmmjs {
namespace bind {

class BufferHandles;

struct BufferHandle {
  static constexpr uint32_t kMagic = 0x52424631;  // "RBF1"
  uint32_t magic = kMagic;
  DeviceBuffer* buffer;
  BufferHandles* owner;
  BufferHandle* prev = nullptr;
  BufferHandle* next = nullptr;
  bool finalize_deferred = false;  // collected while an asynchronous copy ran
};

// One per environment; only that environment's thread touches it.
class BufferHandles {
 public:
  explicit BufferHandles(napi_env env);
  BufferHandles(const BufferHandles&) = delete;
  BufferHandles& operator=(const BufferHandles&) = delete;

  // Takes ownership of buffer and reports its capacity to V8.
  BufferHandle* Add(DeviceBuffer* buffer);
  // Frees the memory (if free() never ran) and deletes the handle, or defers that until the
  // buffer's asynchronous copies end.
  void Finalize(BufferHandle* handle);
  // After an asynchronous copy: completes a deferred free and a deferred finalize.
  void EndAsync(BufferHandle* handle);
  // Reports a change of a buffer's capacity (a freed buffer holds none).
  void ReportCapacity(size_t before, size_t after);

 private:
  static void Cleanup(void* self);
  void Destroy(BufferHandle* handle);

  napi_env env_;
  BufferHandle* head_ = nullptr;
};

}  // namespace bind
}  // namespace rmmjs
