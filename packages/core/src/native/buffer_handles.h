// The native side of a JavaScript DeviceBuffer. The JS object carries a finalizer-free external
// for calls, and is napi_wrap'ped for lifetime: free() removes the wrap and deletes the handle at
// once (nothing is left for the collector), while a buffer that is never freed is freed by the
// wrap's finalizer, also when its environment ends (a worker that exits returns its memory).
//
// A handle is deleted in exactly one place: by free() when the wrap came off, else by the wrap's
// finalizer (the environment was shutting down, so Node-API refused to remove the wrap, or an
// operation still pinned the buffer).
//
// The collector runs a wrap's finalizer only when the event loop turns, so a synchronous loop
// that drops buffers would hold their memory until it ends. Each thread keeps a list of its
// buffers that own memory; Reclaim() frees those whose JavaScript object the collector has
// already found unreachable (the wrap's weak reference is empty), without waiting for that.
#pragma once

#include <node_api.h>

#include <cstdint>

#include "device_buffer.h"

namespace rmmjs {
namespace bind {

struct BufferHandle {
  static constexpr uint32_t kMagic = 0x52424631;  // "RBF1"
  uint32_t magic = kMagic;
  DeviceBuffer* buffer;  // null once transferred to another thread (then released is true)
  napi_env env;
  napi_ref wrap = nullptr;       // the wrap's own weak reference (deleted with the handle)
  size_t reported = 0;           // bytes reported to V8 as external memory
  bool released = false;         // freed from JavaScript: calls are ERR_RMM_DISPOSED
  BufferHandle* prev = nullptr;  // this thread's buffers that own memory (see Reclaim)
  BufferHandle* next = nullptr;
};

// Wraps js_object around a new handle owning buffer; returns the external for calls (nullptr
// when Node-API failed: the buffer is freed).
napi_value AttachBuffer(napi_env env, napi_value js_object, DeviceBuffer* buffer);
// free(): returns the memory (deferred while the buffer is pinned) and detaches the handle. When
// the buffer keeps its memory (the resource failed to free it), *released is false and the
// handle stays usable. Returns the status of the deallocation.
rmmjs_status ReleaseBuffer(napi_env env, napi_value js_object, BufferHandle* handle, bool* released);
// transfer(): takes the buffer away from the JavaScript object (which then reads as freed) and
// detaches the handle; the caller owns the returned buffer. Not for a pinned buffer.
DeviceBuffer* DetachBuffer(napi_env env, napi_value js_object, BufferHandle* handle);
// Reports the buffer's capacity to V8 (a released buffer holds none) after it may have changed.
void ReportCapacity(BufferHandle* handle);
// Frees the memory of this environment's buffers whose JavaScript objects were collected but
// not finalized yet. Returns how many bytes went back.
size_t Reclaim(napi_env env);

}  // namespace bind
}  // namespace rmmjs
