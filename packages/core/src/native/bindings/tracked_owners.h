// JavaScript objects that own device memory, as the collector should see them: DeviceBuffers
// (buffer_handles.h) and the owners other addons track through core's table (rmmjs_tracked_owner,
// rmmjs/abi.h: a DLPack capsule, say). Every one
// - reports its bytes to V8 as external memory (napi_adjust_external_memory, in batches), so that
//   the collector feels the memory it holds;
// - holds a weak reference to its JavaScript object. The collector runs finalizers only when the
//   event loop turns, so a synchronous loop that drops such objects would hold their memory until
//   it ends: Reclaim gives back, at once, the memory of every owner whose object the collector has
//   already found unreachable (its weak reference is empty) before an allocation reports out of
//   memory.
//
// The table is the thread's: a Node environment runs on one thread, and an owner is touched only
// there. Owners of several environments of the thread (each addon has its own) share it.
//
// For the decision to run a full collection (src/reclaim.ts): the bytes held by owners that may be
// garbage, that is all of them, or those made since the last full collection that rmmjs ran (the
// others were reachable then).
#pragma once

#include <node_api.h>

#include <cstddef>
#include <cstdint>

#include "rmmjs/abi.h"

namespace rmmjs {
namespace bind {

struct TrackedOwner {
  enum class Kind : uint8_t { kBuffer, kForeign };

  TrackedOwner(Kind kind, napi_env env) : kind(kind), env(env) {}

  Kind kind;
  napi_env env;
  napi_ref object = nullptr;  // weak, to the JavaScript object
  uint32_t slot = 0;          // in this thread's table (a DeviceBuffer's number for JavaScript)
  size_t reported = 0;        // bytes counted as external memory (see Report)
  uint64_t epoch = 0;         // the full collections before it was made (see HeldBytes)
  bool released = false;      // it holds nothing for JavaScript any more
};

// Gives owner a slot in this thread's table (throws std::bad_alloc).
void AddOwner(TrackedOwner* owner);
// Takes it out of the table (reporting nothing more: Report(owner, 0) first).
void RemoveOwner(TrackedOwner* owner);
// The owner in `slot` of this thread's table, or null.
TrackedOwner* FindOwner(uint32_t slot);
// Sets the bytes the owner holds for JavaScript; changes reach V8 once this thread's add up to
// 256 KiB either way.
void Report(TrackedOwner* owner, size_t bytes);
// Passes this thread's unreported changes to V8 now; returns the isolate's external memory total.
int64_t ReportExternalMemory(napi_env env);

// Bytes held by this thread's owners: all, or only those made since the last MarkCollected.
size_t HeldBytes(bool since_collection);
// A full collection just ran (and Reclaim after it): the owners left were reachable.
void MarkCollected();
// Gives back the memory of this thread's owners whose objects were collected but not finalized
// yet: returns how many bytes went back. env: the calling environment (core's).
size_t Reclaim(napi_env env);

// The C ABI's track_owner and untrack_owner (rmmjs/abi.h).
rmmjs_status TrackOwner(napi_env env, napi_value object, size_t bytes, size_t (*reclaim)(void* data), void* data,
                        rmmjs_tracked_owner** out);
void UntrackOwner(rmmjs_tracked_owner* owner);

// Defined by buffer_handles.cc: a DeviceBuffer's part of Reclaim (the buffer is freed; the bytes
// its resource took back, or 0 when the finalizer has to try again).
size_t ReclaimBuffer(TrackedOwner* owner);

}  // namespace bind
}  // namespace rmmjs
