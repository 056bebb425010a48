/*
 * A test-only stand-in for the array libraries that take rmmjs's allocator hooks
 * (@rmmjs/function-allocator's librmmjs_allocators.so), in plain C with only node_api.h: it knows
 * the hooks by the function pointer types the libraries spell (CuPy's CFunctionAllocator,
 * PyTorch's CUDAPluggableAllocator, ONNX Runtime's external allocator), takes them by name from
 * the library file (dlopen + dlsym, as PyTorch does) or by address (as CuPy and ONNX Runtime do),
 * and calls them from JavaScript's thread or from threads of its own.
 */
#include <dlfcn.h>
#include <node_api.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void* (*cupy_malloc_fn)(void* param, size_t size, int device);
typedef void (*cupy_free_fn)(void* param, void* ptr, int device);
typedef void* (*torch_alloc_fn)(size_t size, int device, void* stream);
typedef void (*torch_free_fn)(void* ptr, size_t size, int device, void* stream);
typedef void* (*ort_alloc_fn)(size_t size);
typedef void (*ort_free_fn)(void* ptr);
typedef void (*ort_empty_cache_fn)(void);
typedef const char* (*last_error_fn)(void);

static const char* const kSymbols[] = {
    "rmmjs_cupy_malloc",      "rmmjs_cupy_free", "rmmjs_torch_alloc",     "rmmjs_torch_free",
    "rmmjs_ort_alloc",        "rmmjs_ort_free",  "rmmjs_ort_empty_cache", "rmmjs_allocators_last_error",
    "rmmjs_allocators_ready",
};
#define SYMBOL_COUNT (sizeof(kSymbols) / sizeof(kSymbols[0]))

static last_error_fn last_error = NULL;

static napi_value throw_type_error(napi_env env, const char* usage) {
  napi_throw_type_error(env, NULL, usage);
  return NULL;
}

/* Reads argc arguments into argv (fails when fewer were passed). */
static int args(napi_env env, napi_callback_info info, size_t count, napi_value* argv) {
  size_t argc = count;
  return napi_get_cb_info(env, info, &argc, argv, NULL, NULL) == napi_ok && argc >= count;
}

static int get_u64(napi_env env, napi_value value, uint64_t* out) {
  bool lossless = false;
  return napi_get_value_bigint_uint64(env, value, out, &lossless) == napi_ok && lossless;
}

static int get_size(napi_env env, napi_value value, size_t* out) {
  double number = 0;
  if (napi_get_value_double(env, value, &number) != napi_ok || number < 0) return 0;
  *out = (size_t)number;
  return 1;
}

static int get_int(napi_env env, napi_value value, int* out) {
  int32_t number = 0;
  if (napi_get_value_int32(env, value, &number) != napi_ok) return 0;
  *out = number;
  return 1;
}

static napi_value pointer_value(napi_env env, const void* ptr) {
  napi_value result;
  napi_create_bigint_uint64(env, (uint64_t)(uintptr_t)ptr, &result);
  return result;
}

/* A function pointer from an address JavaScript passed as a bigint. */
static void* function_at(uint64_t address) { return (void*)(uintptr_t)address; }

/* open(path) -> { [symbol]: address (bigint) }: dlopen and dlsym, as PyTorch does with a path. */
static napi_value open_library(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  char path[4096];
  size_t length = 0;
  if (!args(env, info, 1, argv) || napi_get_value_string_utf8(env, argv[0], path, sizeof(path), &length) != napi_ok) {
    return throw_type_error(env, "open(path)");
  }
  void* library = dlopen(path, RTLD_NOW | RTLD_LOCAL); /* never closed */
  if (library == NULL) {
    napi_throw_error(env, NULL, dlerror());
    return NULL;
  }
  napi_value result;
  napi_create_object(env, &result);
  for (size_t i = 0; i < SYMBOL_COUNT; i++) {
    void* address = dlsym(library, kSymbols[i]);
    if (address == NULL) continue;
    napi_set_named_property(env, result, kSymbols[i], pointer_value(env, address));
    if (strcmp(kSymbols[i], "rmmjs_allocators_last_error") == 0) *(void**)&last_error = address;
  }
  return result;
}

/* lastError() -> the calling thread's rmmjs_allocators_last_error() (after open()). */
static napi_value last_error_message(napi_env env, napi_callback_info info) {
  napi_value result;
  napi_create_string_utf8(env, last_error != NULL ? last_error() : "open() first", NAPI_AUTO_LENGTH, &result);
  return result;
}

/* cupyMalloc(address, param: bigint, size, device) -> bigint */
static napi_value cupy_malloc(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  uint64_t address = 0, param = 0;
  size_t size = 0;
  int device = 0;
  if (!args(env, info, 4, argv) || !get_u64(env, argv[0], &address) || !get_u64(env, argv[1], &param) ||
      !get_size(env, argv[2], &size) || !get_int(env, argv[3], &device)) {
    return throw_type_error(env, "cupyMalloc(address, param, size, device)");
  }
  cupy_malloc_fn malloc_fn = (cupy_malloc_fn)function_at(address);
  return pointer_value(env, malloc_fn((void*)(uintptr_t)param, size, device));
}

/* cupyFree(address, param: bigint, ptr: bigint, device) */
static napi_value cupy_free(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  uint64_t address = 0, param = 0, ptr = 0;
  int device = 0;
  if (!args(env, info, 4, argv) || !get_u64(env, argv[0], &address) || !get_u64(env, argv[1], &param) ||
      !get_u64(env, argv[2], &ptr) || !get_int(env, argv[3], &device)) {
    return throw_type_error(env, "cupyFree(address, param, ptr, device)");
  }
  cupy_free_fn free_fn = (cupy_free_fn)function_at(address);
  free_fn((void*)(uintptr_t)param, (void*)(uintptr_t)ptr, device);
  return NULL;
}

/* torchAlloc(address, size, device, stream: bigint) -> bigint */
static napi_value torch_alloc(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  uint64_t address = 0, stream = 0;
  size_t size = 0;
  int device = 0;
  if (!args(env, info, 4, argv) || !get_u64(env, argv[0], &address) || !get_size(env, argv[1], &size) ||
      !get_int(env, argv[2], &device) || !get_u64(env, argv[3], &stream)) {
    return throw_type_error(env, "torchAlloc(address, size, device, stream)");
  }
  torch_alloc_fn alloc_fn = (torch_alloc_fn)function_at(address);
  return pointer_value(env, alloc_fn(size, device, (void*)(uintptr_t)stream));
}

/* torchFree(address, ptr: bigint, size, device, stream: bigint) */
static napi_value torch_free(napi_env env, napi_callback_info info) {
  napi_value argv[5];
  uint64_t address = 0, ptr = 0, stream = 0;
  size_t size = 0;
  int device = 0;
  if (!args(env, info, 5, argv) || !get_u64(env, argv[0], &address) || !get_u64(env, argv[1], &ptr) ||
      !get_size(env, argv[2], &size) || !get_int(env, argv[3], &device) || !get_u64(env, argv[4], &stream)) {
    return throw_type_error(env, "torchFree(address, ptr, size, device, stream)");
  }
  torch_free_fn free_fn = (torch_free_fn)function_at(address);
  free_fn((void*)(uintptr_t)ptr, size, device, (void*)(uintptr_t)stream);
  return NULL;
}

/* ortAlloc(address, size) -> bigint */
static napi_value ort_alloc(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  uint64_t address = 0;
  size_t size = 0;
  if (!args(env, info, 2, argv) || !get_u64(env, argv[0], &address) || !get_size(env, argv[1], &size)) {
    return throw_type_error(env, "ortAlloc(address, size)");
  }
  ort_alloc_fn alloc_fn = (ort_alloc_fn)function_at(address);
  return pointer_value(env, alloc_fn(size));
}

/* ortFree(address, ptr: bigint) */
static napi_value ort_free(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  uint64_t address = 0, ptr = 0;
  if (!args(env, info, 2, argv) || !get_u64(env, argv[0], &address) || !get_u64(env, argv[1], &ptr)) {
    return throw_type_error(env, "ortFree(address, ptr)");
  }
  ort_free_fn free_fn = (ort_free_fn)function_at(address);
  free_fn((void*)(uintptr_t)ptr);
  return NULL;
}

/* ortEmptyCache(address) */
static napi_value ort_empty_cache(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  uint64_t address = 0;
  if (!args(env, info, 1, argv) || !get_u64(env, argv[0], &address)) {
    return throw_type_error(env, "ortEmptyCache(address)");
  }
  ort_empty_cache_fn empty_cache_fn = (ort_empty_cache_fn)function_at(address);
  empty_cache_fn();
  return NULL;
}

/* --- threads of our own: each allocates and frees through one library's pair of hooks --- */

enum { KIND_CUPY, KIND_TORCH, KIND_ORT };
#define LIVE_PER_THREAD 8

typedef struct worker {
  pthread_t thread;
  int kind;
  void* alloc_fn;
  void* free_fn;
  size_t size;
  int device;
  uintptr_t stream;
  int iterations;
  int failures; /* allocations that returned NULL */
} worker;

static void* worker_alloc(const worker* w, size_t size) {
  switch (w->kind) {
    case KIND_CUPY:
      return ((cupy_malloc_fn)w->alloc_fn)((void*)w->stream, size, w->device);
    case KIND_TORCH:
      return ((torch_alloc_fn)w->alloc_fn)(size, w->device, (void*)w->stream);
    default:
      return ((ort_alloc_fn)w->alloc_fn)(size);
  }
}

static void worker_free(const worker* w, void* ptr, size_t size) {
  switch (w->kind) {
    case KIND_CUPY:
      ((cupy_free_fn)w->free_fn)((void*)w->stream, ptr, w->device);
      break;
    case KIND_TORCH:
      ((torch_free_fn)w->free_fn)(ptr, size, w->device, (void*)w->stream);
      break;
    default:
      ((ort_free_fn)w->free_fn)(ptr);
  }
}

static void* run_worker(void* argument) {
  worker* w = (worker*)argument;
  void* live[LIVE_PER_THREAD] = {0};
  size_t sizes[LIVE_PER_THREAD] = {0};
  for (int i = 0; i < w->iterations; i++) {
    int slot = i % LIVE_PER_THREAD;
    if (live[slot] != NULL) {
      worker_free(w, live[slot], sizes[slot]);
      live[slot] = NULL;
    }
    sizes[slot] = w->size + (size_t)(i % 7) * 256;
    live[slot] = worker_alloc(w, sizes[slot]);
    if (live[slot] == NULL) w->failures++;
  }
  for (int slot = 0; slot < LIVE_PER_THREAD; slot++) {
    if (live[slot] != NULL) worker_free(w, live[slot], sizes[slot]);
  }
  return NULL;
}

/* onThreads(kind: 'cupy' | 'torch' | 'ort', allocAddress, freeAddress, threads, iterations, size,
 * device, stream: bigint) -> allocations that failed. Each thread keeps up to 8 blocks live. */
static napi_value on_threads(napi_env env, napi_callback_info info) {
  napi_value argv[8];
  char kind[16];
  size_t length = 0, size = 0;
  uint64_t alloc_address = 0, free_address = 0, stream = 0;
  int threads = 0, iterations = 0, device = 0;
  if (!args(env, info, 8, argv) || napi_get_value_string_utf8(env, argv[0], kind, sizeof(kind), &length) != napi_ok ||
      !get_u64(env, argv[1], &alloc_address) || !get_u64(env, argv[2], &free_address) ||
      !get_int(env, argv[3], &threads) || !get_int(env, argv[4], &iterations) || !get_size(env, argv[5], &size) ||
      !get_int(env, argv[6], &device) || !get_u64(env, argv[7], &stream) || threads < 1 || threads > 64) {
    return throw_type_error(
        env, "onThreads(kind, allocAddress, freeAddress, threads (1-64), iterations, size, device, stream)");
  }
  int kind_id = strcmp(kind, "cupy") == 0 ? KIND_CUPY : strcmp(kind, "torch") == 0 ? KIND_TORCH : KIND_ORT;
  if (kind_id == KIND_ORT && strcmp(kind, "ort") != 0) return throw_type_error(env, "kind: 'cupy', 'torch' or 'ort'");
  worker workers[64];
  int started = 0;
  for (int i = 0; i < threads; i++) {
    worker w = {0};
    w.kind = kind_id;
    w.alloc_fn = function_at(alloc_address);
    w.free_fn = function_at(free_address);
    w.size = size;
    w.device = device;
    w.stream = (uintptr_t)stream;
    w.iterations = iterations;
    workers[i] = w;
    if (pthread_create(&workers[i].thread, NULL, run_worker, &workers[i]) != 0) break;
    started++;
  }
  int failures = 0;
  for (int i = 0; i < started; i++) {
    pthread_join(workers[i].thread, NULL);
    failures += workers[i].failures;
  }
  if (started < threads) {
    napi_throw_error(env, NULL, "pthread_create failed");
    return NULL;
  }
  napi_value result;
  napi_create_int32(env, failures, &result);
  return result;
}

NAPI_MODULE_INIT() {
  napi_property_descriptor properties[] = {
      {"open", NULL, open_library, NULL, NULL, NULL, napi_default, NULL},
      {"lastError", NULL, last_error_message, NULL, NULL, NULL, napi_default, NULL},
      {"cupyMalloc", NULL, cupy_malloc, NULL, NULL, NULL, napi_default, NULL},
      {"cupyFree", NULL, cupy_free, NULL, NULL, NULL, napi_default, NULL},
      {"torchAlloc", NULL, torch_alloc, NULL, NULL, NULL, napi_default, NULL},
      {"torchFree", NULL, torch_free, NULL, NULL, NULL, napi_default, NULL},
      {"ortAlloc", NULL, ort_alloc, NULL, NULL, NULL, napi_default, NULL},
      {"ortFree", NULL, ort_free, NULL, NULL, NULL, napi_default, NULL},
      {"ortEmptyCache", NULL, ort_empty_cache, NULL, NULL, NULL, napi_default, NULL},
      {"onThreads", NULL, on_threads, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof(properties) / sizeof(properties[0]), properties);
  return exports;
}
