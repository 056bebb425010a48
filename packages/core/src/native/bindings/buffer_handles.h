// The native side of a JavaScript DeviceBuffer. The JS object holds its handle's slot number (a
// small integer: unlike an external, it costs the collector nothing) and passes it to every call,
// and carries a finalizer (napi_add_finalizer) for lifetime: free() deletes the finalizer's
// reference and the handle at once (nothing is left for the collector), while a buffer that is
// never freed is freed by the finalizer, also when its environment ends (a worker that exits
// returns its memory).
//
// A handle is deleted in exactly one place: by free() when the finalizer's reference was deleted,
// else by the finalizer (Node-API refused to delete the reference, or an operation still pinned
// the buffer).
//
// The collector runs a finalizer only when the event loop turns, so a synchronous loop that drops
// buffers would hold their memory until it ends. Reclaim() frees the buffers that own memory and
// whose JavaScript object the collector has already found unreachable (the finalizer's weak
// reference is empty), without waiting for that.
#pragma once

#include <node_api.h>

#include <cstdint>

#include "buffers/device_buffer.h"

namespace rmmjs {
namespace bind {

struct BufferHandle {
  DeviceBuffer* buffer;  // null once transferred to another thread (then released is true)
  napi_env env;
  napi_ref object = nullptr;  // weak, to the JavaScript object; the finalizer's (deleted with the handle)
  uint32_t slot = 0;          // in this thread's table: the number JavaScript holds
  size_t reported = 0;        // bytes counted as external memory (see ReportCapacity)
  bool released = false;      // freed from JavaScript: calls are ERR_RMM_DISPOSED
};

// Gives js_object a new handle owning buffer; returns the handle's slot number for calls (nullptr
// when Node-API or the host's memory failed: the buffer is freed).
napi_value AttachBuffer(napi_env env, napi_value js_object, DeviceBuffer* buffer);
// The handle that a slot number names in this environment, or null.
BufferHandle* FindBuffer(napi_env env, napi_value slot);
// free(): returns the memory (deferred while the buffer is pinned) and detaches the handle. When
// the buffer keeps its memory (the resource failed to free it), *released is false and the
// handle stays usable. Returns the status of the deallocation.
rmmjs_status ReleaseBuffer(BufferHandle* handle, bool* released);
// transfer(): takes the buffer away from the JavaScript object (which then reads as freed) and
// detaches the handle; the caller owns the returned buffer. Not for a pinned buffer.
DeviceBuffer* DetachBuffer(BufferHandle* handle);
// Reports the buffer's capacity to V8 (a released buffer holds none) after it may have changed;
// changes are passed on once this thread's add up to 256 KiB either way.
void ReportCapacity(BufferHandle* handle);
// Passes on this thread's unreported changes now; returns the isolate's external memory total.
int64_t ReportExternalMemory(napi_env env);
// Frees the memory of this environment's buffers whose JavaScript objects were collected but
// not finalized yet. Returns how many bytes went back.
size_t Reclaim(napi_env env);

}  // namespace bind
}  // namespace rmmjs
