#include "bindings/buffer_handles.h"

#include <cstdint>
#include <new>
#include <utility>
#include <vector>

namespace rmmjs {
namespace bind {
namespace {

// This thread's handles by slot number (a Node environment runs on one thread). A free slot holds
// the number of the next free one, shifted left with the low bit set (a handle's address has it
// clear), so that freeing a slot never allocates.
class SlotTable {
 public:
  // Throws std::bad_alloc.
  uint32_t Add(BufferHandle* handle) {
    uint32_t slot = free_;
    if (slot != kNone) {
      free_ = static_cast<uint32_t>(entries_[slot] >> 1);
    } else {
      if (entries_.size() >= kNone) throw std::bad_alloc();
      slot = static_cast<uint32_t>(entries_.size());
      entries_.push_back(0);
    }
    entries_[slot] = reinterpret_cast<uintptr_t>(handle);
    return slot;
  }

  void Remove(uint32_t slot) {
    entries_[slot] = (uintptr_t{free_} << 1) | 1;
    free_ = slot;
  }

  BufferHandle* Find(size_t slot) const {
    if (slot >= entries_.size() || (entries_[slot] & 1) != 0) return nullptr;
    return reinterpret_cast<BufferHandle*>(entries_[slot]);
  }

  size_t size() const { return entries_.size(); }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  std::vector<uintptr_t> entries_;
  uint32_t free_ = kNone;
};

thread_local SlotTable tl_slots;

// Capacity changes not yet reported to V8. They go in batches: the collector needs the order of
// magnitude, and a call into V8 per small buffer costs more than the buffer itself.
constexpr int64_t kReportBatch = int64_t{256} << 10;
thread_local int64_t tl_unreported = 0;

void Delete(BufferHandle* handle) {
  tl_slots.Remove(handle->slot);
  if (handle->object != nullptr) napi_delete_reference(handle->env, handle->object);
  delete handle->buffer;  // frees the memory if nothing did (errors are logged)
  delete handle;
}

// The finalizer: the JavaScript object was collected (or its environment ended) without free(),
// or free() could not delete the finalizer's reference. Pins left now belong to asynchronous
// copies of an environment that is ending (a copy in flight keeps its buffer's object reachable),
// which nothing will resume.
void Collect(napi_env, void* data, void*) {
  auto* handle = static_cast<BufferHandle*>(data);
  handle->released = true;
  ReportCapacity(handle);
  if (handle->buffer != nullptr) handle->buffer->ClearPins();
  Delete(handle);
}

// Deletes the handle of a buffer that JavaScript let go of, unless the finalizer has to: Node-API
// may refuse to delete its reference (then the finalizer runs later and deletes the handle).
void Forget(BufferHandle* handle) {
  if (napi_delete_reference(handle->env, handle->object) != napi_ok) return;
  handle->object = nullptr;
  Delete(handle);
}

}  // namespace

void ReportCapacity(BufferHandle* handle) {
  size_t now = handle->released ? 0 : handle->buffer->capacity();
  if (now == handle->reported) return;
  tl_unreported += static_cast<int64_t>(now) - static_cast<int64_t>(handle->reported);
  handle->reported = now;
  if (tl_unreported >= kReportBatch || tl_unreported <= -kReportBatch) ReportExternalMemory(handle->env);
}

int64_t ReportExternalMemory(napi_env env) {
  int64_t total = 0;
  napi_adjust_external_memory(env, std::exchange(tl_unreported, 0), &total);
  return total;
}

napi_value AttachBuffer(napi_env env, napi_value js_object, DeviceBuffer* buffer) {
  auto* handle = new (std::nothrow) BufferHandle{buffer, env};
  if (handle == nullptr) {
    delete buffer;
    return nullptr;
  }
  try {
    handle->slot = tl_slots.Add(handle);
  } catch (const std::bad_alloc&) {
    delete buffer;
    delete handle;
    return nullptr;
  }
  napi_value slot = nullptr;
  if (napi_create_uint32(env, handle->slot, &slot) != napi_ok ||
      napi_add_finalizer(env, js_object, handle, Collect, nullptr, &handle->object) != napi_ok) {
    Delete(handle);
    return nullptr;
  }
  ReportCapacity(handle);
  return slot;
}

BufferHandle* FindBuffer(napi_env env, napi_value slot) {
  uint32_t number = 0;
  if (napi_get_value_uint32(env, slot, &number) != napi_ok) return nullptr;
  BufferHandle* handle = tl_slots.Find(number);
  return handle != nullptr && handle->env == env ? handle : nullptr;
}

rmmjs_status ReleaseBuffer(BufferHandle* handle, bool* released) {
  DeviceBuffer* buffer = handle->buffer;
  handle->released = true;  // JavaScript that the free runs sees a freed buffer
  rmmjs_status status = buffer->Free();
  *released = buffer->freed();
  if (!*released) {
    handle->released = false;
    return status;
  }
  ReportCapacity(handle);
  if (buffer->pinned()) return status;  // freed when the pins go; the finalizer deletes the handle
  Forget(handle);
  return status;
}

DeviceBuffer* DetachBuffer(BufferHandle* handle) {
  handle->released = true;
  ReportCapacity(handle);  // the capacity now counts on the thread that claims the buffer
  DeviceBuffer* buffer = std::exchange(handle->buffer, nullptr);
  Forget(handle);
  return buffer;
}

size_t Reclaim(napi_env env) {
  // First list every collected buffer: freeing may run JavaScript that frees or creates other
  // buffers. (Their finalizers run only when the event loop turns, not meanwhile.)
  std::vector<BufferHandle*> collected;
  napi_handle_scope scope = nullptr;
  if (napi_open_handle_scope(env, &scope) != napi_ok) return 0;
  for (size_t slot = 0; slot < tl_slots.size(); ++slot) {
    BufferHandle* handle = tl_slots.Find(slot);
    napi_value object = nullptr;
    if (handle != nullptr && handle->env == env && !handle->released &&
        napi_get_reference_value(env, handle->object, &object) == napi_ok && object == nullptr) {
      collected.push_back(handle);
    }
  }
  napi_close_handle_scope(env, scope);
  size_t bytes = 0;
  for (BufferHandle* handle : collected) {
    handle->released = true;
    ReportCapacity(handle);
    size_t capacity = handle->buffer->capacity();
    if (handle->buffer->Free() == RMMJS_OK) bytes += capacity;  // else the finalizer tries again (and logs)
  }
  return bytes;
}

}  // namespace bind
}  // namespace rmmjs
