// The native side of a JavaScript DeviceBuffer. The JS object carries a finalizer-free external
// for calls, and is napi_wrap'ped for lifetime: free() removes the wrap and deletes the handle at
// once (nothing is left for the collector), while a buffer that is never freed is freed by the
// wrap's finalizer, also when its environment ends (a worker that exits returns its memory).
#pragma once

#include <node_api.h>

#include <cstdint>

#include "device_buffer.h"

namespace rmmjs {
namespace bind {

struct BufferHandle {
  static constexpr uint32_t kMagic = 0x52424631;  // "RBF1"
  uint32_t magic = kMagic;
  DeviceBuffer* buffer;
  napi_env env;
  bool released = false;  // freed by JS: delete once no asynchronous copy uses it
};

// Wraps js_object around a new handle owning buffer; returns the external for calls.
napi_value AttachBuffer(napi_env env, napi_value js_object, DeviceBuffer* buffer);
// free(): returns the memory, removes the wrap, deletes the handle (or defers that to the end
// of the asynchronous copies in flight). Returns the status of the deallocation.
rmmjs_status ReleaseBuffer(napi_env env, napi_value js_object, BufferHandle* handle);
// After an asynchronous copy: completes a deferred free and a deferred delete.
void EndAsync(BufferHandle* handle);
// Reports a change of a buffer's capacity to V8 (a freed buffer holds none).
void ReportCapacity(napi_env env, size_t before, size_t after);

}  // namespace bind
}  // namespace rmmjs
