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
// A handle is a tracked owner (tracked_owners.h): it reports its capacity to V8, and its
// finalizer's reference is the weak one through which Reclaim frees the buffer of a JavaScript
// object the collector already found unreachable, without waiting for the finalizer.
#pragma once

#include <node_api.h>

#include <cstdint>

#include "bindings/tracked_owners.h"
#include "buffers/device_buffer.h"

namespace rmmjs {
namespace bind {

struct BufferHandle : TrackedOwner {
  BufferHandle(DeviceBuffer* buffer, napi_env env) : TrackedOwner(Kind::kBuffer, env), buffer(buffer) {}
  // null once transferred to another thread (then released is true). released: freed from
  // JavaScript, calls are ERR_RMM_DISPOSED.
  DeviceBuffer* buffer;
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
// Reports the buffer's capacity to V8 (a released buffer holds none) after it may have changed.
void ReportCapacity(BufferHandle* handle);

}  // namespace bind
}  // namespace rmmjs
