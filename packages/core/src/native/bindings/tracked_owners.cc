#include "bindings/tracked_owners.h"

#include <cstdint>
#include <new>
#include <utility>
#include <vector>

#include "runtime/errors.h"

// What an addon's tracked owner is to core: a TrackedOwner that reclaim(data) gives back.
struct rmmjs_tracked_owner : rmmjs::bind::TrackedOwner {
  rmmjs_tracked_owner(napi_env env, size_t (*reclaim)(void*), void* data)
      : TrackedOwner(Kind::kForeign, env), reclaim(reclaim), data(data) {}
  size_t (*reclaim)(void* data);
  void* data;
};

namespace rmmjs {
namespace bind {
namespace {

// This thread's owners by slot number. A free slot holds the number of the next free one, shifted
// left with the low bit set (an owner's address has it clear), so that freeing a slot never
// allocates.
class SlotTable {
 public:
  // Throws std::bad_alloc.
  uint32_t Add(TrackedOwner* owner) {
    uint32_t slot = free_;
    if (slot != kNone) {
      free_ = static_cast<uint32_t>(entries_[slot] >> 1);
    } else {
      if (entries_.size() >= kNone) throw std::bad_alloc();
      slot = static_cast<uint32_t>(entries_.size());
      entries_.push_back(0);
    }
    entries_[slot] = reinterpret_cast<uintptr_t>(owner);
    return slot;
  }

  void Remove(uint32_t slot) {
    entries_[slot] = (uintptr_t{free_} << 1) | 1;
    free_ = slot;
  }

  TrackedOwner* Find(size_t slot) const {
    if (slot >= entries_.size() || (entries_[slot] & 1) != 0) return nullptr;
    return reinterpret_cast<TrackedOwner*>(entries_[slot]);
  }

  size_t size() const { return entries_.size(); }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  std::vector<uintptr_t> entries_;
  uint32_t free_ = kNone;
};

thread_local SlotTable tl_slots;

// Changes not yet reported to V8. They go in batches: the collector needs the order of magnitude,
// and a call into V8 per small buffer costs more than the buffer itself.
constexpr int64_t kReportBatch = int64_t{256} << 10;
thread_local int64_t tl_unreported = 0;

// Bytes the owners hold; of those made since the last full collection; that collection's number.
thread_local size_t tl_held = 0;
thread_local size_t tl_held_since_collection = 0;
thread_local uint64_t tl_collections = 0;

}  // namespace

void AddOwner(TrackedOwner* owner) {
  owner->slot = tl_slots.Add(owner);
  owner->epoch = tl_collections;
}

void RemoveOwner(TrackedOwner* owner) { tl_slots.Remove(owner->slot); }

TrackedOwner* FindOwner(uint32_t slot) { return tl_slots.Find(slot); }

void Report(TrackedOwner* owner, size_t bytes) {
  if (bytes == owner->reported) return;
  tl_held += bytes;
  tl_held -= owner->reported;
  if (owner->epoch == tl_collections) {
    tl_held_since_collection += bytes;
    tl_held_since_collection -= owner->reported;
  }
  tl_unreported += static_cast<int64_t>(bytes) - static_cast<int64_t>(owner->reported);
  owner->reported = bytes;
  if (tl_unreported >= kReportBatch || tl_unreported <= -kReportBatch) ReportExternalMemory(owner->env);
}

int64_t ReportExternalMemory(napi_env env) {
  int64_t total = 0;
  napi_adjust_external_memory(env, std::exchange(tl_unreported, 0), &total);
  return total;
}

size_t HeldBytes(bool since_collection) { return since_collection ? tl_held_since_collection : tl_held; }

void MarkCollected() {
  ++tl_collections;
  tl_held_since_collection = 0;
}

size_t Reclaim(napi_env env) {
  // First list every collected owner: giving memory back may run JavaScript (a resource's) that
  // frees or makes others. (Their finalizers run only when the event loop turns, not meanwhile.)
  std::vector<TrackedOwner*> collected;
  napi_handle_scope scope = nullptr;
  if (napi_open_handle_scope(env, &scope) != napi_ok) return 0;
  for (size_t slot = 0; slot < tl_slots.size(); ++slot) {
    TrackedOwner* owner = tl_slots.Find(slot);
    napi_value object = nullptr;
    if (owner != nullptr && !owner->released &&
        napi_get_reference_value(owner->env, owner->object, &object) == napi_ok && object == nullptr) {
      collected.push_back(owner);
    }
  }
  napi_close_handle_scope(env, scope);
  // A resource's JavaScript that a buffer's free runs may allocate, run out and reclaim in turn:
  // that Reclaim must leave these alone (it would give an owner back, and delete it, twice).
  for (TrackedOwner* owner : collected) owner->released = true;
  size_t bytes = 0;
  for (TrackedOwner* owner : collected) {
    if (owner->kind == TrackedOwner::Kind::kBuffer) {
      bytes += ReclaimBuffer(owner);
    } else {
      auto* foreign = static_cast<rmmjs_tracked_owner*>(owner);
      bytes += foreign->reclaim(foreign->data);
      UntrackOwner(foreign);
    }
  }
  return bytes;
}

rmmjs_status TrackOwner(napi_env env, napi_value object, size_t bytes, size_t (*reclaim)(void* data), void* data,
                        rmmjs_tracked_owner** out) {
  if (env == nullptr || object == nullptr || reclaim == nullptr || out == nullptr) {
    return SetError(RMMJS_ERR_INVALID_ARGUMENT, "track_owner: env, object, reclaim and out must not be NULL");
  }
  auto* owner = new (std::nothrow) rmmjs_tracked_owner(env, reclaim, data);
  if (owner == nullptr) return SetError(RMMJS_ERR_OUT_OF_MEMORY, "track_owner: out of host memory");
  if (napi_create_reference(env, object, 0, &owner->object) != napi_ok) {
    delete owner;
    return SetError(RMMJS_ERR_INVALID_ARGUMENT, "track_owner: object must be a JavaScript object or external");
  }
  try {
    AddOwner(owner);
  } catch (const std::bad_alloc&) {
    napi_delete_reference(env, owner->object);
    delete owner;
    return SetError(RMMJS_ERR_OUT_OF_MEMORY, "track_owner: out of host memory");
  }
  Report(owner, bytes);
  *out = owner;
  return RMMJS_OK;
}

void UntrackOwner(rmmjs_tracked_owner* owner) {
  if (owner == nullptr) return;
  owner->released = true;
  Report(owner, 0);
  RemoveOwner(owner);
  napi_delete_reference(owner->env, owner->object);
  delete owner;
}

}  // namespace bind
}  // namespace rmmjs
