/*
 * rmmjs's allocator hooks: C functions in the signatures that GPU array libraries' pluggable
 * allocators take, each allocating from the current device resource of the device it is given
 * (core's per-device registry: the resource `setCurrentDeviceResource` / `setPerDeviceResource`
 * set from JavaScript). They live in build/librmmjs_allocators.so of @rmmjs/function-allocator,
 * which initialises them with @rmmjs/core's API table when the package is imported; a library
 * loaded into the same process takes them by name from that file (PyTorch) or by address
 * (`allocatorHooks` in JavaScript: CuPy, ONNX Runtime).
 *
 * Every hook may be called from any thread, at once, with or without a CUDA context current.
 *
 * Failures: an allocation that fails returns NULL (the C ABI has no exceptions); the calling
 * thread's rmmjs_allocators_last_error() then says why ("rmmjs_torch_alloc: Exceeded memory limit
 * ..."). 0 bytes return NULL without an error, and freeing NULL does nothing.
 *
 * Frees: memory goes back to the resource that allocated it (even if the current resource changed
 * since), on the stream the free names, with the size it was allocated with. A free of a pointer
 * the hooks did not hand out (or handed out and took back already) frees nothing and changes
 * nothing: it is counted (foreign_frees) and logged at error level to rmmjs's debug logger
 * (RMM_DEBUG_LOG_FILE or stderr). A free the resource fails keeps the allocation live.
 *
 * Before the JavaScript package is imported, allocations return NULL and
 * rmmjs_allocators_ready() is 0.
 */
#ifndef RMMJS_ALLOCATORS_H
#define RMMJS_ALLOCATORS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RMMJS_ALLOCATORS_API __attribute__((visibility("default")))

/* The layout of rmmjs_allocator_statistics; it only grows, at the end. */
#define RMMJS_ALLOCATORS_VERSION 1

/* --- CuPy: cupy.cuda.memory.CFunctionAllocator(param, malloc, free, owner) ---
 * param is the stream to allocate and free on (a CUstream / cudaStream_t; NULL: the legacy
 * default stream). */
RMMJS_ALLOCATORS_API void* rmmjs_cupy_malloc(void* param, size_t size, int device);
RMMJS_ALLOCATORS_API void rmmjs_cupy_free(void* param, void* ptr, int device);

/* --- PyTorch: torch.cuda.memory.CUDAPluggableAllocator(path, "rmmjs_torch_alloc", "rmmjs_torch_free") ---
 * stream is a cudaStream_t, as RMM's own torch allocator uses it. */
RMMJS_ALLOCATORS_API void* rmmjs_torch_alloc(size_t size, int device, void* stream);
RMMJS_ALLOCATORS_API void rmmjs_torch_free(void* ptr, size_t size, int device, void* stream);

/* --- ONNX Runtime: the CUDA execution provider's external allocator ---
 * (gpu_external_alloc, gpu_external_free, gpu_external_empty_cache). No device is given: the
 * calling thread's current device (its current CUDA context; device 0 without one). No stream
 * is given: the legacy default stream. No size is given on free: the hooks remember it.
 * empty_cache does nothing: the hooks keep no cache (freed memory goes straight back to the
 * resource, and a memory pool keeps what it keeps). */
RMMJS_ALLOCATORS_API void* rmmjs_ort_alloc(size_t size);
RMMJS_ALLOCATORS_API void rmmjs_ort_free(void* ptr);
RMMJS_ALLOCATORS_API void rmmjs_ort_empty_cache(void);

/* --- the library itself --- */
struct rmmjs_core_api; /* rmmjs/abi.h */

/* Called by the JavaScript package when it loads (once per process is enough; later calls with
 * the same table are no-ops). 1 when the hooks are ready, 0 when the table is not compatible or
 * another core's table came first. */
RMMJS_ALLOCATORS_API int rmmjs_allocators_init(const struct rmmjs_core_api* core);
/* 1 once initialised. */
RMMJS_ALLOCATORS_API int rmmjs_allocators_ready(void);
/* Why the calling thread's last hook call failed (valid until that thread's next call into rmmjs). */
RMMJS_ALLOCATORS_API const char* rmmjs_allocators_last_error(void);

typedef struct rmmjs_allocator_statistics {
  uint64_t live_allocations;   /* handed out and not freed */
  uint64_t live_bytes;         /* their sizes as requested */
  uint64_t total_allocations;  /* handed out since load */
  uint64_t failed_allocations; /* that returned NULL for a size > 0 */
  uint64_t foreign_frees;      /* frees of pointers the hooks did not hand out, ignored */
} rmmjs_allocator_statistics;

RMMJS_ALLOCATORS_API void rmmjs_allocators_statistics(rmmjs_allocator_statistics* out);

#ifdef __cplusplus
}
#endif

#endif /* RMMJS_ALLOCATORS_H */
