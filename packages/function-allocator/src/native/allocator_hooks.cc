// build/librmmjs_allocators.so: the C hooks of include/rmmjs/allocators.h over core's C ABI.
//
// Each allocation is recorded (pointer -> resource, size, device), so that a free goes back to the
// resource that handed the memory out with the size it was allocated with (ONNX Runtime gives no
// size, and the current resource may have changed since), and a free of anything else changes
// nothing.
#include "rmmjs/allocators.h"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <new>
#include <string>

#include "rmmjs/abi.h"
#include "rmmjs/format.hpp"
#include "rmmjs/pointer_table.hpp"
#include "rmmjs/resource.hpp"
#include "rmmjs/status.hpp"

namespace rmmjs {
namespace {

struct Allocation {
  rmmjs_resource* mr = nullptr;  // one reference, released when the memory is freed
  size_t bytes = 0;
  int32_t device = 0;
};

// Published once g_core_api (resource.hpp) is set: hooks called before init see nullptr.
std::atomic<const rmmjs_core_api*> g_ready{nullptr};
std::mutex g_init_mutex;

// Never destroyed: a library may free memory from its own static destructors, in any order.
ShardedPointerTable<Allocation>& Live() {
  static auto* table = new ShardedPointerTable<Allocation>();
  return *table;
}

std::atomic<uint64_t> g_live_allocations{0};
std::atomic<uint64_t> g_live_bytes{0};
std::atomic<uint64_t> g_total_allocations{0};
std::atomic<uint64_t> g_failed_allocations{0};
std::atomic<uint64_t> g_foreign_frees{0};

const rmmjs_core_api* Core() { return g_ready.load(std::memory_order_acquire); }

// What a free names that the record may contradict (a caller's bug: the record wins).
constexpr size_t kAnySize = SIZE_MAX;
constexpr int kAnyDevice = -1;

// Logs build()'s message at level. Never throws: the hooks return to C callers.
template <class Build>
void LogSafely(rmmjs_log_level level, Build&& build) noexcept {
  try {
    LogAt(level, build());
  } catch (...) {
  }
}

std::string Hex(const void* ptr) { return FormatHex(reinterpret_cast<uintptr_t>(ptr)); }

// Prefixes the calling thread's error message with the hook's name (status and CUDA code kept).
void Failed(const rmmjs_core_api* core, const char* hook, rmmjs_status status) noexcept {
  try {
    std::string message = std::string(hook) + ": " + LastErrorMessage();
    core->set_error(status, core->error_cuda_code(), message.c_str());
  } catch (...) {
    core->set_error(status, core->error_cuda_code(), hook);
  }
  g_failed_allocations.fetch_add(1, std::memory_order_relaxed);
  LogSafely(RMMJS_LOG_DEBUG, [] { return LastErrorMessage(); });
}

// Runs op with device's primary context current (as RMM's torch allocator sets the device).
template <class Op>
rmmjs_status OnDevice(const rmmjs_core_api* core, int32_t device, Op&& op) {
  void* saved = nullptr;
  RMMJS_TRY(core->context_push(device, &saved));
  rmmjs_status status = op();
  core->context_restore(saved);
  return status;
}

bool Record(void* ptr, const Allocation& allocation) noexcept {
  try {
    return Live().Insert(ptr, allocation);
  } catch (...) {
    return false;
  }
}

rmmjs_status AllocateFrom(const rmmjs_core_api* core, rmmjs_resource* mr, size_t bytes, int32_t device,
                          rmmjs_stream stream, void** out) {
  RMMJS_TRY(OnDevice(core, device, [&] { return core->allocate(mr, bytes, stream, out); }));
  if (Record(*out, Allocation{mr, bytes, device})) return RMMJS_OK;
  OnDevice(core, device, [&] { return core->deallocate(mr, *out, bytes, stream); });
  *out = nullptr;
  return core->set_error(RMMJS_ERR_OUT_OF_MEMORY, 0, "out of host memory for the table of allocations");
}

void* Allocate(const char* hook, size_t bytes, int32_t device, rmmjs_stream stream) noexcept {
  if (bytes == 0) return nullptr;
  const rmmjs_core_api* core = Core();
  if (core == nullptr) {
    g_failed_allocations.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
  }
  rmmjs_resource* mr = nullptr;
  void* ptr = nullptr;
  rmmjs_status status = core->get_per_device_resource(device, &mr);
  if (status == RMMJS_OK) status = AllocateFrom(core, mr, bytes, device, stream, &ptr);
  if (status != RMMJS_OK) {
    if (mr != nullptr) core->release(mr);
    Failed(core, hook, status);
    return nullptr;
  }
  g_live_allocations.fetch_add(1, std::memory_order_relaxed);
  g_live_bytes.fetch_add(bytes, std::memory_order_relaxed);
  g_total_allocations.fetch_add(1, std::memory_order_relaxed);
  return ptr;
}

void Deallocate(const char* hook, void* ptr, rmmjs_stream stream, size_t bytes = kAnySize,
                int device = kAnyDevice) noexcept {
  const rmmjs_core_api* core = Core();
  if (ptr == nullptr || core == nullptr) return;
  Allocation allocation;
  if (!Live().Take(ptr, &allocation)) {
    g_foreign_frees.fetch_add(1, std::memory_order_relaxed);
    LogSafely(RMMJS_LOG_ERROR, [&] {
      return std::string(hook) + ": " + Hex(ptr) +
             " was not allocated by rmmjs's allocator hooks, or was freed already: ignored";
    });
    return;
  }
  if ((bytes != kAnySize && bytes != allocation.bytes) || (device != kAnyDevice && device != allocation.device)) {
    LogSafely(RMMJS_LOG_WARN, [&] {
      return std::string(hook) + ": " + Hex(ptr) + " was allocated as " + std::to_string(allocation.bytes) +
             " bytes on device " + std::to_string(allocation.device) + ", not " + std::to_string(bytes) +
             " bytes on device " + std::to_string(device) + ": freeing what was allocated";
    });
  }
  rmmjs_status status =
      OnDevice(core, allocation.device, [&] { return core->deallocate(allocation.mr, ptr, allocation.bytes, stream); });
  // The resource still owns memory it failed to free, unless it says the memory is not its own.
  if (status != RMMJS_OK && status != RMMJS_ERR_LOGIC && Record(ptr, allocation)) {
    LogSafely(RMMJS_LOG_ERROR, [&] {
      return std::string(hook) + ": could not free " + Hex(ptr) + ", still allocated: " + LastErrorMessage();
    });
    return;
  }
  if (status != RMMJS_OK) LogSafely(RMMJS_LOG_ERROR, [&] { return std::string(hook) + ": " + LastErrorMessage(); });
  core->release(allocation.mr);
  g_live_allocations.fetch_sub(1, std::memory_order_relaxed);
  g_live_bytes.fetch_sub(allocation.bytes, std::memory_order_relaxed);
}

rmmjs_stream StreamOf(void* handle) { return reinterpret_cast<rmmjs_stream>(handle); }

}  // namespace
}  // namespace rmmjs

using rmmjs::Allocate;
using rmmjs::Deallocate;
using rmmjs::StreamOf;

extern "C" {

void* rmmjs_cupy_malloc(void* param, size_t size, int device) {
  return Allocate("rmmjs_cupy_malloc", size, device, StreamOf(param));
}

void rmmjs_cupy_free(void* param, void* ptr, int device) {
  Deallocate("rmmjs_cupy_free", ptr, StreamOf(param), rmmjs::kAnySize, device);
}

void* rmmjs_torch_alloc(size_t size, int device, void* stream) {
  return Allocate("rmmjs_torch_alloc", size, device, StreamOf(stream));
}

void rmmjs_torch_free(void* ptr, size_t size, int device, void* stream) {
  Deallocate("rmmjs_torch_free", ptr, StreamOf(stream), size, device);
}

void* rmmjs_ort_alloc(size_t size) {
  const rmmjs_core_api* core = rmmjs::Core();
  int32_t device = 0;
  if (core != nullptr && size > 0) {
    rmmjs_status status = core->get_current_device(&device);
    if (status != RMMJS_OK) {
      rmmjs::Failed(core, "rmmjs_ort_alloc", status);
      return nullptr;
    }
  }
  return Allocate("rmmjs_ort_alloc", size, device, 0);
}

void rmmjs_ort_free(void* ptr) { Deallocate("rmmjs_ort_free", ptr, 0); }

void rmmjs_ort_empty_cache(void) {}

int rmmjs_allocators_init(const struct rmmjs_core_api* core) {
  if (!rmmjs_core_api_compatible(core)) return 0;
  std::lock_guard<std::mutex> lock(rmmjs::g_init_mutex);
  const rmmjs_core_api* ready = rmmjs::g_ready.load(std::memory_order_acquire);
  if (ready != nullptr) return ready == core ? 1 : 0;
  rmmjs::g_core_api = core;
  rmmjs::g_ready.store(core, std::memory_order_release);
  return 1;
}

int rmmjs_allocators_ready(void) { return rmmjs::Core() != nullptr ? 1 : 0; }

const char* rmmjs_allocators_last_error(void) {
  const rmmjs_core_api* core = rmmjs::Core();
  if (core == nullptr) return "rmmjs's allocator hooks are not initialised: import @rmmjs/function-allocator first";
  return core->error_message();
}

void rmmjs_allocators_statistics(rmmjs_allocator_statistics* out) {
  if (out == nullptr) return;
  out->live_allocations = rmmjs::g_live_allocations.load(std::memory_order_relaxed);
  out->live_bytes = rmmjs::g_live_bytes.load(std::memory_order_relaxed);
  out->total_allocations = rmmjs::g_total_allocations.load(std::memory_order_relaxed);
  out->failed_allocations = rmmjs::g_failed_allocations.load(std::memory_order_relaxed);
  out->foreign_frees = rmmjs::g_foreign_frees.load(std::memory_order_relaxed);
}

}  // extern "C"
