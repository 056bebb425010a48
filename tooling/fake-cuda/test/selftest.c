/*
 * Self-test of build/libfakecuda.so: loads it as core does (dlopen + dlsym of every symbol in
 * RMMJS_DRIVER_FUNCTIONS) and exercises each area. Each scenario runs in a forked child with
 * its own environment, because the fake reads its environment once, on first use.
 *
 *   gcc -std=c11 -Wall -Wextra -Werror -I../../packages/core/include test/selftest.c \
 *       -o build/selftest -ldl -lpthread && ./build/selftest [path/to/libfakecuda.so]
 *
 * (from tooling/fake-cuda; `pnpm run selftest` runs the same.)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rmmjs/cuda_driver.h"

enum {
  INVALID_HANDLE = 400,
  STREAM_LEGACY = 1,
  STREAM_PER_THREAD = 2,
  MEMPOOL_ATTR_RESERVED_MEM_CURRENT = 5,
};

static const char* library_path = "build/libfakecuda.so";
static rmmjs_driver_api api;
static rmmjs_CUresult (*mem_alloc_async)(rmmjs_CUdeviceptr*, size_t, rmmjs_CUstream);
static int (*control)(const char*, char*, size_t);
static _Atomic int failures;

#define EXPECT(condition)                                                      \
  do {                                                                         \
    if (!(condition)) {                                                        \
      fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #condition); \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

#define EXPECT_EQ(actual, expected)                                                                    \
  do {                                                                                                 \
    long long actual_value = (long long)(actual);                                                      \
    long long expected_value = (long long)(expected);                                                  \
    if (actual_value != expected_value) {                                                              \
      fprintf(stderr, "%s:%d: %s is %lld, expected %lld\n", __FILE__, __LINE__, #actual, actual_value, \
              expected_value);                                                                         \
      ++failures;                                                                                      \
    }                                                                                                  \
  } while (0)

static void Load(void) {
  void* handle = dlopen(library_path, RTLD_NOW | RTLD_LOCAL);
  if (handle == NULL) {
    fprintf(stderr, "dlopen %s: %s\n", library_path, dlerror());
    exit(2);
  }
#define LOAD_SYMBOL(name, symbol, ret, args)        \
  api.name = (ret(*) args)dlsym(handle, symbol);    \
  if (api.name == NULL) {                           \
    fprintf(stderr, "missing symbol %s\n", symbol); \
    ++failures;                                     \
  }
  RMMJS_DRIVER_FUNCTIONS(LOAD_SYMBOL)
#undef LOAD_SYMBOL
  *(void**)&mem_alloc_async = dlsym(handle, "cuMemAllocAsync");
  *(void**)&control = dlsym(handle, "rmmjs_fake_control");
  if (mem_alloc_async == NULL || control == NULL || failures > 0) {
    fprintf(stderr, "missing symbols\n");
    exit(2);
  }
}

/* Runs a control command that must succeed; returns its output (static buffer). */
static const char* Control(const char* command) {
  static char out[8192];
  int result = control(command, out, sizeof(out));
  if (result != 0) {
    fprintf(stderr, "control '%s' failed (%d): %s\n", command, result, out);
    ++failures;
  }
  return out;
}

/* The value of "key":N in the stats JSON, or -1. */
static long long Stat(const char* key) {
  const char* json = Control("stats");
  char pattern[128];
  snprintf(pattern, sizeof(pattern), "\"%s\":", key);
  const char* found = strstr(json, pattern);
  return found ? atoll(found + strlen(pattern)) : -1;
}

static rmmjs_CUcontext InitAndSetDevice(int device) {
  EXPECT_EQ(api.cuInit(0), RMMJS_CUDA_SUCCESS);
  rmmjs_CUcontext context = NULL;
  EXPECT_EQ(api.cuDevicePrimaryCtxRetain(&context, device), RMMJS_CUDA_SUCCESS);
  EXPECT_EQ(api.cuCtxSetCurrent(context), RMMJS_CUDA_SUCCESS);
  return context;
}

static void TestErrorNames(void) {
  static const struct {
    int code;
    const char* name;
    const char* description;
  } expected[] = {
      {0, "CUDA_SUCCESS", "no error"},
      {1, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
      {2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
      {3, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
      {100, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
      {101, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
      {200, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
      {201, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
      {400, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
      {600, "CUDA_ERROR_NOT_READY", "device not ready"},
      {712, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED", "part or all of the requested memory range is already mapped"},
      {713, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED", "pointer does not correspond to a registered memory region"},
      {700, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"},
      {801, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
      {999, "CUDA_ERROR_UNKNOWN", "unknown error"},
  };
  for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); ++i) {
    const char* text = NULL;
    EXPECT_EQ(api.cuGetErrorName(expected[i].code, &text), 0);
    EXPECT(text != NULL && strcmp(text, expected[i].name) == 0);
    EXPECT_EQ(api.cuGetErrorString(expected[i].code, &text), 0);
    EXPECT(text != NULL && strcmp(text, expected[i].description) == 0);
  }
  const char* text = "untouched";
  EXPECT_EQ(api.cuGetErrorName(12345, &text), RMMJS_CUDA_ERROR_INVALID_VALUE);
  EXPECT(text == NULL);
  text = "untouched";
  EXPECT_EQ(api.cuGetErrorString(12345, &text), RMMJS_CUDA_ERROR_INVALID_VALUE);
  EXPECT(text == NULL);
}

static void TestInitAndDevices(void) {
  int value = 0;
  /* Before cuInit only the error functions and the version work. */
  EXPECT_EQ(api.cuDriverGetVersion(&value), 0);
  EXPECT_EQ(value, 13000);
  EXPECT_EQ(api.cuDeviceGetCount(&value), RMMJS_CUDA_ERROR_NOT_INITIALIZED);
  rmmjs_CUdeviceptr pointer = 0;
  EXPECT_EQ(api.cuMemAlloc(&pointer, 16), RMMJS_CUDA_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(api.cuInit(1), RMMJS_CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(api.cuInit(0), 0);

  EXPECT_EQ(api.cuDeviceGetCount(&value), 0);
  EXPECT_EQ(value, 2);
  rmmjs_CUdevice device = -1;
  EXPECT_EQ(api.cuDeviceGet(&device, 1), 0);
  EXPECT_EQ(device, 1);
  EXPECT_EQ(api.cuDeviceGet(&device, 2), RMMJS_CUDA_ERROR_INVALID_DEVICE);
  EXPECT_EQ(api.cuDeviceGet(&device, -1), RMMJS_CUDA_ERROR_INVALID_DEVICE);
  char name[64];
  EXPECT_EQ(api.cuDeviceGetName(name, sizeof(name), 1), 0);
  EXPECT(strcmp(name, "rmmjs fake CUDA device 1") == 0);
  EXPECT_EQ(api.cuDeviceGetName(name, 6, 0), 0);
  EXPECT(strcmp(name, "rmmjs") == 0);
  EXPECT_EQ(api.cuDeviceGetName(name, sizeof(name), 2), RMMJS_CUDA_ERROR_INVALID_DEVICE);

  static const int attributes[][2] = {
      {RMMJS_CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS, 0},
      {RMMJS_CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS, 1},
      {RMMJS_CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, 1},
      {RMMJS_CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES, 1},
      {41, 1},
      {75, 9},
      {76, 0},
      {1, 0},
      {16, 0},
  };
  for (size_t i = 0; i < sizeof(attributes) / sizeof(attributes[0]); ++i) {
    value = -1;
    EXPECT_EQ(api.cuDeviceGetAttribute(&value, attributes[i][0], 0), 0);
    EXPECT_EQ(value, attributes[i][1]);
  }
  EXPECT_EQ(api.cuDeviceGetAttribute(&value, 75, 7), RMMJS_CUDA_ERROR_INVALID_DEVICE);
  Control("set-attribute 1 16 132");
  EXPECT_EQ(api.cuDeviceGetAttribute(&value, 16, 1), 0);
  EXPECT_EQ(value, 132);
  EXPECT_EQ(api.cuDeviceGetAttribute(&value, 16, 0), 0);
  EXPECT_EQ(value, 0);
}

static void* ThreadHasNoContext(void* unused) {
  (void)unused;
  rmmjs_CUcontext context = (rmmjs_CUcontext)1;
  EXPECT_EQ(api.cuCtxGetCurrent(&context), 0);
  EXPECT(context == NULL);
  rmmjs_CUdeviceptr pointer = 0;
  EXPECT_EQ(api.cuMemAlloc(&pointer, 16), RMMJS_CUDA_ERROR_INVALID_CONTEXT);
  return NULL;
}

static void TestContexts(void) {
  EXPECT_EQ(api.cuInit(0), 0);
  rmmjs_CUcontext current = (rmmjs_CUcontext)1;
  EXPECT_EQ(api.cuCtxGetCurrent(&current), 0);
  EXPECT(current == NULL);
  rmmjs_CUdevice device = -1;
  EXPECT_EQ(api.cuCtxGetDevice(&device), RMMJS_CUDA_ERROR_INVALID_CONTEXT);
  size_t free_bytes = 0, total_bytes = 0;
  EXPECT_EQ(api.cuMemGetInfo(&free_bytes, &total_bytes), RMMJS_CUDA_ERROR_INVALID_CONTEXT);
  rmmjs_CUstream stream = NULL;
  EXPECT_EQ(api.cuStreamCreateWithPriority(&stream, 0, 0), RMMJS_CUDA_ERROR_INVALID_CONTEXT);
  /* The default streams mean the current context's: none here. */
  EXPECT_EQ(api.cuStreamSynchronize(NULL), RMMJS_CUDA_ERROR_INVALID_CONTEXT);

  rmmjs_CUcontext first = NULL, again = NULL, second = NULL;
  EXPECT_EQ(api.cuDevicePrimaryCtxRetain(&first, 0), 0);
  EXPECT_EQ(api.cuDevicePrimaryCtxRetain(&again, 0), 0);
  EXPECT_EQ(api.cuDevicePrimaryCtxRetain(&second, 1), 0);
  EXPECT(first != NULL && first == again && first != second);
  EXPECT_EQ(api.cuDevicePrimaryCtxRetain(&second, 2), RMMJS_CUDA_ERROR_INVALID_DEVICE);

  int not_a_context = 0;
  EXPECT_EQ(api.cuCtxSetCurrent((rmmjs_CUcontext)&not_a_context), RMMJS_CUDA_ERROR_INVALID_CONTEXT);
  EXPECT_EQ(api.cuCtxSetCurrent(second), 0);
  EXPECT_EQ(api.cuCtxGetCurrent(&current), 0);
  EXPECT(current == second);
  EXPECT_EQ(api.cuCtxGetDevice(&device), 0);
  EXPECT_EQ(device, 1);
  EXPECT_EQ(api.cuStreamSynchronize(NULL), 0);
  EXPECT_EQ(api.cuStreamSynchronize((rmmjs_CUstream)STREAM_LEGACY), 0);
  EXPECT_EQ(api.cuStreamSynchronize((rmmjs_CUstream)STREAM_PER_THREAD), 0);

  /* The current context is per thread. */
  pthread_t thread;
  pthread_create(&thread, NULL, ThreadHasNoContext, NULL);
  pthread_join(thread, NULL);
  EXPECT_EQ(api.cuCtxGetCurrent(&current), 0);
  EXPECT(current == second);

  int least = 99, greatest = 99;
  EXPECT_EQ(api.cuCtxGetStreamPriorityRange(&least, &greatest), 0);
  EXPECT_EQ(least, 0);
  EXPECT_EQ(greatest, -5);
  EXPECT_EQ(api.cuCtxGetStreamPriorityRange(NULL, &greatest), 0);
  EXPECT_EQ(api.cuCtxSetCurrent(NULL), 0);
  EXPECT_EQ(api.cuCtxGetCurrent(&current), 0);
  EXPECT(current == NULL);
}

static void TestMemory(void) {
  InitAndSetDevice(0);
  rmmjs_CUdeviceptr a = 0, b = 0, managed = 0;
  EXPECT_EQ(api.cuMemAlloc(&a, 0), RMMJS_CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(api.cuMemAlloc(&a, 1000), 0);
  EXPECT(a != 0 && a % 512 == 0);
  EXPECT_EQ(api.cuMemAlloc(&b, 3000), 0);
  EXPECT_EQ(Stat("liveAllocations"), 2);
  EXPECT_EQ(Stat("liveBytes"), 4000);
  EXPECT(strstr(Control("stats"), "\"liveDeviceBytes\":[4000,0]") != NULL);

  size_t free_bytes = 0, total_bytes = 0;
  EXPECT_EQ(api.cuMemGetInfo(&free_bytes, &total_bytes), 0);
  EXPECT_EQ(total_bytes, 268435456);
  EXPECT_EQ(free_bytes, 268435456 - 4000);

  /* Over budget: an error and nothing allocated. */
  rmmjs_CUdeviceptr big = 12345;
  EXPECT_EQ(api.cuMemAlloc(&big, 268435456), RMMJS_CUDA_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(big, 12345);
  EXPECT_EQ(Stat("liveAllocations"), 2);
  Control("set-memory 0 5000");
  EXPECT_EQ(api.cuMemAlloc(&big, 1001), RMMJS_CUDA_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(api.cuMemAllocManaged(&big, 1001, RMMJS_CU_MEM_ATTACH_GLOBAL), RMMJS_CUDA_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(api.cuMemAlloc(&big, 1000), 0);
  EXPECT_EQ(api.cuMemGetInfo(&free_bytes, &total_bytes), 0);
  EXPECT_EQ(free_bytes, 0);
  EXPECT_EQ(total_bytes, 5000);
  EXPECT_EQ(api.cuMemFree(big), 0);
  Control("set-memory 0 268435456");

  /* Copies and memset stay inside allocations. */
  unsigned char host[4096];
  for (int i = 0; i < 4096; ++i) host[i] = (unsigned char)i;
  EXPECT_EQ(api.cuMemcpyAsync(a, (rmmjs_CUdeviceptr)host, 1000, NULL), 0);
  EXPECT_EQ(memcmp((void*)a, host, 1000), 0);
  EXPECT_EQ(api.cuMemcpyAsync(a + 500, (rmmjs_CUdeviceptr)host, 500, NULL), 0);
  EXPECT_EQ(api.cuMemcpyAsync(a + 500, (rmmjs_CUdeviceptr)host, 501, NULL), RMMJS_CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(api.cuMemcpyAsync(b, a, 1001, NULL), RMMJS_CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(api.cuMemcpyAsync(b, a, 1000, NULL), 0);
  EXPECT_EQ(api.cuMemsetD8Async(b + 1000, 0xab, 2000, NULL), 0);
  EXPECT_EQ(((unsigned char*)b)[2999], 0xab);
  EXPECT_EQ(((unsigned char*)b)[999], host[499]); /* a[500..999] was overwritten with host[0..499] */
  EXPECT_EQ(api.cuMemsetD8Async(b + 1000, 0xab, 2001, NULL), RMMJS_CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(api.cuMemcpyAsync(a, 0, 10, NULL), RMMJS_CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(api.cuMemcpyAsync(a, 0, 0, NULL), 0);
  EXPECT_EQ(api.cuMemcpyAsync(a, b, 10, (rmmjs_CUstream)(uintptr_t)0x1234), INVALID_HANDLE);

  /* Pointer attributes, interior pointers included. */
  unsigned int attribute = 99;
  EXPECT_EQ(api.cuPointerGetAttribute(&attribute, RMMJS_CU_POINTER_ATTRIBUTE_IS_MANAGED, a + 999), 0);
  EXPECT_EQ(attribute, 0);
  EXPECT_EQ(api.cuPointerGetAttribute(&attribute, RMMJS_CU_POINTER_ATTRIBUTE_MEMORY_TYPE, a), 0);
  EXPECT_EQ(attribute, RMMJS_CU_MEMORYTYPE_DEVICE);
  EXPECT_EQ(api.cuPointerGetAttribute(&attribute, RMMJS_CU_POINTER_ATTRIBUTE_IS_MANAGED, (rmmjs_CUdeviceptr)host),
            RMMJS_CUDA_ERROR_INVALID_VALUE);

  EXPECT_EQ(api.cuMemAllocManaged(&managed, 4096, 0), RMMJS_CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(api.cuMemAllocManaged(&managed, 0, RMMJS_CU_MEM_ATTACH_GLOBAL), RMMJS_CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(api.cuMemAllocManaged(&managed, 4096, RMMJS_CU_MEM_ATTACH_GLOBAL), 0);
  EXPECT_EQ(api.cuPointerGetAttribute(&attribute, RMMJS_CU_POINTER_ATTRIBUTE_IS_MANAGED, managed + 4095), 0);
  EXPECT_EQ(attribute, 1);
  EXPECT_EQ(api.cuPointerGetAttribute(&attribute, RMMJS_CU_POINTER_ATTRIBUTE_IS_MANAGED, managed + 4096 + 4096 * 1024),
            RMMJS_CUDA_ERROR_INVALID_VALUE);

  void* pinned = NULL;
  EXPECT_EQ(api.cuMemHostAlloc(&pinned, 100, 8), RMMJS_CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(api.cuMemHostAlloc(&pinned, 100, RMMJS_CU_MEMHOSTALLOC_PORTABLE), 0);
  EXPECT_EQ(
      api.cuPointerGetAttribute(&attribute, RMMJS_CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (rmmjs_CUdeviceptr)pinned + 50), 0);
  EXPECT_EQ(attribute, RMMJS_CU_MEMORYTYPE_HOST);
  /* Pinned host memory does not count against the device. */
  EXPECT(strstr(Control("stats"), "\"liveDeviceBytes\":[8096,0]") != NULL);
  EXPECT_EQ(api.cuMemFree((rmmjs_CUdeviceptr)pinned), RMMJS_CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(api.cuMemFreeHost((void*)a), RMMJS_CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(api.cuMemFreeHost(pinned), 0);
  EXPECT_EQ(api.cuMemFreeHost(pinned), RMMJS_CUDA_ERROR_INVALID_VALUE);

  /* Frees: exact starts only, once. */
  EXPECT_EQ(api.cuMemFree(0), 0);
  EXPECT_EQ(api.cuMemFree(a + 1), RMMJS_CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(api.cuMemFree(a), 0);
  EXPECT_EQ(api.cuMemFree(a), RMMJS_CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(api.cuMemFree((rmmjs_CUdeviceptr)host), RMMJS_CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(api.cuMemFree(b), 0);
  EXPECT_EQ(api.cuMemFree(managed), 0);
  EXPECT_EQ(Stat("liveAllocations"), 0);
  EXPECT_EQ(Stat("liveBytes"), 0);

  /* Allocations land on the current context's device. */
  InitAndSetDevice(1);
  EXPECT_EQ(api.cuMemAlloc(&a, 777), 0);
  EXPECT(strstr(Control("stats"), "\"liveDeviceBytes\":[0,777]") != NULL);
  EXPECT_EQ(api.cuMemFree(a), 0);
}

enum {
  PREFERRED_TYPE = 5,
  PREFERRED_ID = 6,
  PREFETCH_TYPE = RMMJS_CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE,
  PREFETCH_ID = RMMJS_CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID,
  NO_ANSWER = -99,
};

/* A 4-byte range attribute, or NO_ANSWER when the query fails. */
static int RangeAttribute(int attribute, rmmjs_CUdeviceptr pointer, size_t bytes) {
  int value = 0;
  return api.cuMemRangeGetAttribute(&value, 4, attribute, pointer, bytes) == 0 ? value : NO_ANSWER;
}

static void TestHostRegistration(void) {
  static unsigned char host[8192];
  rmmjs_CUdeviceptr device_pointer = 0;
  EXPECT_EQ(api.cuInit(0), RMMJS_CUDA_SUCCESS);
  /* Without a current context: an error, nothing recorded. */
  EXPECT_EQ(api.cuMemHostRegister(host, 4096, 0), RMMJS_CUDA_ERROR_INVALID_CONTEXT);
  InitAndSetDevice(0);
  EXPECT_EQ(api.cuMemHostRegister(NULL, 4096, 0), RMMJS_CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(api.cuMemHostRegister(host, 0, 0), RMMJS_CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(api.cuMemHostRegister(host, 4096, 0x10), RMMJS_CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(api.cuMemHostRegister(host, 4096, 0x8), RMMJS_CUDA_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(Stat("liveRegistrations"), 0);

  /* A registered range; overlapping it again is refused; an unmapped range has no device pointer. */
  EXPECT_EQ(api.cuMemHostRegister(host, 4096, 0), 0);
  EXPECT_EQ(Stat("liveRegistrations"), 1);
  EXPECT_EQ(api.cuMemHostRegister(host + 4095, 10, 0), RMMJS_CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
  EXPECT_EQ(api.cuMemHostGetDevicePointer(&device_pointer, host, 0), RMMJS_CUDA_ERROR_INVALID_VALUE);
  /* A mapped one next to it. */
  EXPECT_EQ(api.cuMemHostRegister(host + 4096, 4096, RMMJS_CU_MEMHOSTREGISTER_DEVICEMAP), 0);
  EXPECT_EQ(api.cuMemHostGetDevicePointer(&device_pointer, host + 4100, 0), 0);
  EXPECT_EQ(device_pointer, (rmmjs_CUdeviceptr)(host + 4100));
  EXPECT_EQ(api.cuMemHostGetDevicePointer(&device_pointer, host + 4100, 1), RMMJS_CUDA_ERROR_INVALID_VALUE);

  /* Unregistering needs the base address, once. */
  EXPECT_EQ(api.cuMemHostUnregister(host + 1), RMMJS_CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
  EXPECT_EQ(api.cuMemHostUnregister(host), 0);
  EXPECT_EQ(api.cuMemHostUnregister(host), RMMJS_CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
  EXPECT_EQ(api.cuMemHostUnregister(host + 4096), 0);
  EXPECT_EQ(Stat("liveRegistrations"), 0);

  /* Pinned host memory is registered already; device memory cannot be registered. */
  void* pinned = NULL;
  rmmjs_CUdeviceptr device = 0;
  EXPECT_EQ(api.cuMemHostAlloc(&pinned, 4096, RMMJS_CU_MEMHOSTALLOC_DEVICEMAP), 0);
  EXPECT_EQ(api.cuMemHostRegister(pinned, 100, 0), RMMJS_CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
  EXPECT_EQ(api.cuMemHostGetDevicePointer(&device_pointer, pinned, 0), 0);
  EXPECT_EQ(device_pointer, (rmmjs_CUdeviceptr)pinned);
  EXPECT_EQ(api.cuMemHostUnregister(pinned), RMMJS_CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
  EXPECT_EQ(api.cuMemFreeHost(pinned), 0);
  EXPECT_EQ(api.cuMemHostAlloc(&pinned, 4096, 0), 0);
  EXPECT_EQ(api.cuMemHostGetDevicePointer(&device_pointer, pinned, 0), RMMJS_CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(api.cuMemFreeHost(pinned), 0);
  EXPECT_EQ(api.cuMemAlloc(&device, 4096), 0);
  EXPECT_EQ(api.cuMemHostRegister((void*)device, 4096, 0), RMMJS_CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(api.cuMemFree(device), 0);
}

static void TestPrefetchAndAdvice(void) {
  InitAndSetDevice(0);
  const int invalid_value = RMMJS_CUDA_ERROR_INVALID_VALUE;
  const int invalid_device = RMMJS_CUDA_ERROR_INVALID_DEVICE;
  const int advise_preferred = RMMJS_CU_MEM_ADVISE_SET_PREFERRED_LOCATION;
  const rmmjs_CUmemLocation device_0 = {RMMJS_CU_MEM_LOCATION_TYPE_DEVICE, 0};
  const rmmjs_CUmemLocation device_1 = {RMMJS_CU_MEM_LOCATION_TYPE_DEVICE, 1};
  const rmmjs_CUmemLocation device_9 = {RMMJS_CU_MEM_LOCATION_TYPE_DEVICE, 9};
  const rmmjs_CUmemLocation host = {RMMJS_CU_MEM_LOCATION_TYPE_HOST, 0};
  const rmmjs_CUmemLocation nowhere = {RMMJS_CU_MEM_LOCATION_TYPE_INVALID, 0};
  rmmjs_CUdeviceptr managed = 0, device_memory = 0;
  EXPECT_EQ(api.cuMemAllocManaged(&managed, 8192, RMMJS_CU_MEM_ATTACH_GLOBAL), 0);
  EXPECT_EQ(api.cuMemAlloc(&device_memory, 8192), 0);

  /* Prefetch: never, then a device, then the host (last one wins, for the whole allocation). */
  EXPECT_EQ(RangeAttribute(PREFETCH_TYPE, managed, 8192), RMMJS_CU_MEM_LOCATION_TYPE_INVALID);
  EXPECT_EQ(RangeAttribute(PREFETCH_ID, managed, 8192), -2);
  EXPECT_EQ(api.cuMemPrefetchAsync(managed, 8192, device_1, 0, NULL), 0);
  EXPECT_EQ(RangeAttribute(PREFETCH_TYPE, managed, 8192), RMMJS_CU_MEM_LOCATION_TYPE_DEVICE);
  EXPECT_EQ(RangeAttribute(PREFETCH_ID, managed, 8192), 1);
  EXPECT_EQ(api.cuMemPrefetchAsync(managed + 4096, 4096, host, 0, NULL), 0);
  EXPECT_EQ(RangeAttribute(PREFETCH_TYPE, managed, 8192), RMMJS_CU_MEM_LOCATION_TYPE_HOST);

  EXPECT_EQ(api.cuMemPrefetchAsync(managed, 8193, host, 0, NULL), invalid_value);
  EXPECT_EQ(api.cuMemPrefetchAsync(device_memory, 8192, host, 0, NULL), invalid_value);
  EXPECT_EQ(api.cuMemPrefetchAsync(managed, 8192, device_9, 0, NULL), invalid_device);
  EXPECT_EQ(api.cuMemPrefetchAsync(managed, 8192, nowhere, 0, NULL), invalid_value);
  EXPECT_EQ(api.cuMemPrefetchAsync(managed, 8192, host, 1, NULL), invalid_value);
  EXPECT_EQ(api.cuMemPrefetchAsync(managed, 8192, host, 0, (rmmjs_CUstream)(uintptr_t)0x999), INVALID_HANDLE);
  Control("set-attribute 1 89 0"); /* no concurrent managed access: no prefetch to it */
  EXPECT_EQ(api.cuMemPrefetchAsync(managed, 8192, device_1, 0, NULL), invalid_device);
  Control("set-attribute 1 89 1");

  int value = 0;
  EXPECT_EQ(api.cuMemRangeGetAttribute(&value, 8, PREFETCH_TYPE, managed, 8192), invalid_value);
  EXPECT_EQ(RangeAttribute(1, managed, 8192), NO_ANSWER);
  EXPECT_EQ(RangeAttribute(PREFETCH_TYPE, device_memory, 8192), NO_ANSWER);

  /* Advice on managed memory: the preferred location is recorded. */
  EXPECT_EQ(RangeAttribute(PREFERRED_TYPE, managed, 8192), RMMJS_CU_MEM_LOCATION_TYPE_INVALID);
  EXPECT_EQ(api.cuMemAdvise(managed, 8192, advise_preferred, device_1), 0);
  EXPECT_EQ(RangeAttribute(PREFERRED_TYPE, managed, 8192), RMMJS_CU_MEM_LOCATION_TYPE_DEVICE);
  EXPECT_EQ(RangeAttribute(PREFERRED_ID, managed, 8192), 1);
  EXPECT_EQ(api.cuMemAdvise(managed, 8192, 4, nowhere), 0); /* unset: location ignored */
  EXPECT_EQ(RangeAttribute(PREFERRED_TYPE, managed, 8192), RMMJS_CU_MEM_LOCATION_TYPE_INVALID);
  EXPECT_EQ(api.cuMemAdvise(managed, 8192, advise_preferred, device_9), invalid_device);
  EXPECT_EQ(api.cuMemAdvise(managed, 8192, advise_preferred, nowhere), invalid_value);
  EXPECT_EQ(api.cuMemAdvise(managed, 8193, 1, host), invalid_value);
  EXPECT_EQ(api.cuMemAdvise(managed, 8192, 7, host), invalid_value);
  EXPECT_EQ(api.cuMemAdvise(device_memory, 8192, 1, host), invalid_value);

  /* Advice on system memory needs pageable memory access (of the target device, if any). */
  static char system_memory[8192];
  rmmjs_CUdeviceptr system = (rmmjs_CUdeviceptr)system_memory;
  EXPECT_EQ(api.cuMemAdvise(system, 8192, advise_preferred, host), invalid_value);
  Control("set-attribute 0 88 1");
  EXPECT_EQ(api.cuMemAdvise(system, 4096, advise_preferred, host), 0);
  EXPECT_EQ(api.cuMemAdvise(system, 4096, advise_preferred, device_1), invalid_device);
  EXPECT_EQ(api.cuMemAdvise(system, 4096, advise_preferred, device_0), 0);

  EXPECT_EQ(api.cuMemFree(managed), 0);
  EXPECT_EQ(api.cuMemFree(device_memory), 0);
}

static int host_function_calls;
static void HostFunction(void* user_data) {
  /* Runs on the calling thread, with the driver's lock released: calling back must work. */
  rmmjs_CUcontext current = NULL;
  EXPECT_EQ(api.cuCtxGetCurrent(&current), 0);
  EXPECT(current != NULL);
  *(int*)user_data += 1;
}

static void TestStreamsAndEvents(void) {
  InitAndSetDevice(0);
  rmmjs_CUstream stream = NULL, other = NULL;
  EXPECT_EQ(api.cuStreamCreateWithPriority(&stream, 2, 0), RMMJS_CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(api.cuStreamCreateWithPriority(&stream, RMMJS_CU_STREAM_NON_BLOCKING, -100), 0);
  EXPECT_EQ(api.cuStreamCreateWithPriority(&other, 0, 0), 0);
  EXPECT((uintptr_t)stream > 2 && stream != other);
  EXPECT_EQ(Stat("liveStreams"), 2);
  EXPECT_EQ(api.cuStreamSynchronize(stream), 0);
  EXPECT_EQ(api.cuStreamQuery(stream), 0);
  EXPECT_EQ(api.cuLaunchHostFunc(stream, HostFunction, &host_function_calls), 0);
  EXPECT_EQ(host_function_calls, 1);
  EXPECT_EQ(api.cuLaunchHostFunc(stream, NULL, NULL), RMMJS_CUDA_ERROR_INVALID_VALUE);

  rmmjs_CUevent event = NULL;
  EXPECT_EQ(api.cuEventCreate(&event, 0x10), RMMJS_CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(api.cuEventCreate(&event, 0x4), RMMJS_CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(api.cuEventCreate(&event, RMMJS_CU_EVENT_DISABLE_TIMING), 0);
  EXPECT_EQ(Stat("liveEvents"), 1);
  EXPECT_EQ(api.cuEventRecord(event, stream), 0);
  EXPECT_EQ(api.cuEventRecord(event, NULL), 0);
  EXPECT_EQ(api.cuStreamWaitEvent(other, event, 0), 0);
  EXPECT_EQ(api.cuStreamWaitEvent(other, event, 2), RMMJS_CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(api.cuEventSynchronize(event), 0);
  EXPECT_EQ(api.cuEventQuery(event), 0);

  /* Use after destroy. */
  EXPECT_EQ(api.cuStreamDestroy(stream), 0);
  EXPECT_EQ(api.cuStreamDestroy(stream), INVALID_HANDLE);
  EXPECT_EQ(api.cuStreamSynchronize(stream), INVALID_HANDLE);
  EXPECT_EQ(api.cuStreamQuery(stream), INVALID_HANDLE);
  EXPECT_EQ(api.cuEventRecord(event, stream), INVALID_HANDLE);
  EXPECT_EQ(api.cuLaunchHostFunc(stream, HostFunction, &host_function_calls), INVALID_HANDLE);
  EXPECT_EQ(host_function_calls, 1);
  rmmjs_CUdeviceptr pointer = 0;
  EXPECT_EQ(api.cuMemAllocFromPoolAsync(&pointer, 64, NULL, stream), RMMJS_CUDA_ERROR_INVALID_VALUE);
  unsigned long long old_id = 0, fresh_id = 0;
  EXPECT_EQ(api.cuStreamGetId(other, &old_id), 0);
  rmmjs_CUstream fresh = NULL;
  EXPECT_EQ(api.cuStreamCreateWithPriority(&fresh, 0, 0), 0);
  EXPECT(fresh == stream); /* the destroyed stream's handle, as the driver may hand out */
  EXPECT_EQ(api.cuStreamGetId(fresh, &fresh_id), 0);
  EXPECT(fresh_id > old_id); /* but a new id */
  EXPECT_EQ(api.cuStreamSynchronize(fresh), 0);
  EXPECT_EQ(api.cuStreamDestroy(fresh), 0);
  EXPECT_EQ(api.cuStreamSynchronize(fresh), INVALID_HANDLE);

  EXPECT_EQ(api.cuStreamDestroy(NULL), INVALID_HANDLE);
  EXPECT_EQ(api.cuStreamDestroy((rmmjs_CUstream)STREAM_LEGACY), INVALID_HANDLE);
  EXPECT_EQ(api.cuEventDestroy(event), 0);
  EXPECT_EQ(api.cuEventDestroy(event), INVALID_HANDLE);
  EXPECT_EQ(api.cuEventQuery(event), INVALID_HANDLE);
  EXPECT_EQ(api.cuEventSynchronize(event), INVALID_HANDLE);
  EXPECT_EQ(api.cuStreamWaitEvent(other, event, 0), INVALID_HANDLE);
  EXPECT_EQ(api.cuStreamDestroy(other), 0);
  EXPECT_EQ(Stat("liveStreams"), 0);
  EXPECT_EQ(Stat("liveEvents"), 0);
}

/* Two devices: an event records only on a stream of its own context; a stream waits on an event of
 * any context; cuStreamGetCtx names a created stream's context, the current one for the default
 * streams. */
static void TestStreamsOfTwoDevices(void) {
  rmmjs_CUcontext first = InitAndSetDevice(0);
  rmmjs_CUevent event = NULL;
  rmmjs_CUstream zero = NULL, one = NULL;
  EXPECT_EQ(api.cuEventCreate(&event, RMMJS_CU_EVENT_DISABLE_TIMING), 0);
  EXPECT_EQ(api.cuStreamCreateWithPriority(&zero, 0, 0), 0);
  rmmjs_CUcontext second = InitAndSetDevice(1);
  EXPECT(first != second);
  EXPECT_EQ(api.cuStreamCreateWithPriority(&one, 0, 0), 0);
  rmmjs_CUcontext context = NULL;
  EXPECT_EQ(api.cuStreamGetCtx(zero, &context), 0);
  EXPECT(context == first);
  EXPECT_EQ(api.cuStreamGetCtx(one, &context), 0);
  EXPECT(context == second);
  EXPECT_EQ(api.cuStreamGetCtx((rmmjs_CUstream)STREAM_LEGACY, &context), 0);
  EXPECT(context == second);
  EXPECT_EQ(api.cuStreamGetCtx(one, NULL), RMMJS_CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(api.cuEventRecord(event, one), INVALID_HANDLE);
  EXPECT_EQ(api.cuEventRecord(event, NULL), INVALID_HANDLE); /* device 1's default stream */
  EXPECT_EQ(api.cuEventRecord(event, zero), 0);
  EXPECT_EQ(api.cuStreamWaitEvent(one, event, 0), 0);
  EXPECT_EQ(api.cuCtxSetCurrent(NULL), 0);
  EXPECT_EQ(api.cuStreamGetCtx(NULL, &context), RMMJS_CUDA_ERROR_INVALID_CONTEXT);
  EXPECT_EQ(api.cuStreamDestroy(one), 0);
  EXPECT_EQ(api.cuStreamGetCtx(one, &context), INVALID_HANDLE);
  EXPECT_EQ(api.cuStreamDestroy(zero), 0);
  EXPECT_EQ(api.cuEventDestroy(event), 0);
}

static void TestPools(void) {
  InitAndSetDevice(0);
  rmmjs_CUmemoryPool default_pool = NULL, again = NULL, pool = NULL;
  EXPECT_EQ(api.cuDeviceGetDefaultMemPool(&default_pool, 0), 0);
  EXPECT_EQ(api.cuDeviceGetDefaultMemPool(&again, 0), 0);
  EXPECT(default_pool != NULL && default_pool == again);
  EXPECT_EQ(api.cuDeviceGetDefaultMemPool(&again, 1), 0);
  EXPECT(again != default_pool);
  EXPECT_EQ(api.cuDeviceGetDefaultMemPool(&again, 2), RMMJS_CUDA_ERROR_INVALID_DEVICE);

  rmmjs_CUmemPoolProps props;
  memset(&props, 0, sizeof(props));
  props.alloc_type = RMMJS_CU_MEM_ALLOCATION_TYPE_PINNED;
  props.location.type = RMMJS_CU_MEM_LOCATION_TYPE_DEVICE;
  props.location.id = 1;
  props.handle_types = RMMJS_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  EXPECT_EQ(api.cuMemPoolCreate(&pool, NULL), RMMJS_CUDA_ERROR_INVALID_VALUE);
  props.location.id = 2;
  EXPECT_EQ(api.cuMemPoolCreate(&pool, &props), RMMJS_CUDA_ERROR_INVALID_VALUE);
  props.location.id = 1;
  props.alloc_type = 0;
  EXPECT_EQ(api.cuMemPoolCreate(&pool, &props), RMMJS_CUDA_ERROR_INVALID_VALUE);
  props.alloc_type = RMMJS_CU_MEM_ALLOCATION_TYPE_PINNED;
  props.handle_types = 4;
  EXPECT_EQ(api.cuMemPoolCreate(&pool, &props), RMMJS_CUDA_ERROR_INVALID_VALUE);
  props.handle_types = RMMJS_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  Control("set-attribute 1 119 0");
  EXPECT_EQ(api.cuMemPoolCreate(&pool, &props), RMMJS_CUDA_ERROR_NOT_SUPPORTED);
  Control("set-attribute 1 119 1");
  EXPECT_EQ(api.cuMemPoolCreate(&pool, &props), 0);
  EXPECT_EQ(Stat("livePools"), 1);

  uint64_t threshold = UINT64_MAX;
  EXPECT_EQ(api.cuMemPoolSetAttribute(pool, RMMJS_CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold), 0);
  EXPECT_EQ(api.cuMemPoolSetAttribute(pool, MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &threshold),
            RMMJS_CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(api.cuMemPoolSetAttribute(pool, RMMJS_CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, NULL),
            RMMJS_CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(api.cuMemPoolTrimTo(pool, 0), 0);

  /* Pool allocations count against the pool's device, whatever the current one. */
  rmmjs_CUdeviceptr a = 0, b = 0, c = 0;
  EXPECT_EQ(api.cuMemAllocFromPoolAsync(&a, 0, pool, NULL), RMMJS_CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(api.cuMemAllocFromPoolAsync(&a, 1024, pool, NULL), 0);
  EXPECT_EQ(api.cuMemAllocFromPoolAsync(&b, 2048, pool, NULL), 0);
  EXPECT_EQ(mem_alloc_async(&c, 4096, NULL), 0);
  EXPECT(strstr(Control("stats"), "\"liveDeviceBytes\":[4096,3072]") != NULL);
  EXPECT_EQ(api.cuMemAllocFromPoolAsync(&a, 268435456, pool, NULL), RMMJS_CUDA_ERROR_OUT_OF_MEMORY);
  unsigned int managed = 9;
  EXPECT_EQ(api.cuPointerGetAttribute(&managed, RMMJS_CU_POINTER_ATTRIBUTE_IS_MANAGED, b + 10), 0);
  EXPECT_EQ(managed, 0);

  rmmjs_CUdeviceptr plain = 0;
  EXPECT_EQ(api.cuMemAlloc(&plain, 64), 0);
  EXPECT_EQ(api.cuMemFreeAsync(plain, NULL), RMMJS_CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(api.cuMemFree(plain), 0);
  EXPECT_EQ(api.cuMemFreeAsync(c, NULL), 0);
  EXPECT_EQ(api.cuMemFreeAsync(c, NULL), RMMJS_CUDA_ERROR_INVALID_VALUE);

  /* Destroying a pool with live allocations succeeds; they stay valid and freeable. */
  EXPECT_EQ(api.cuMemPoolDestroy(default_pool), RMMJS_CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(api.cuMemPoolDestroy(pool), 0);
  EXPECT_EQ(api.cuMemPoolDestroy(pool), RMMJS_CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(Stat("livePools"), 0);
  EXPECT_EQ(api.cuMemAllocFromPoolAsync(&c, 64, pool, NULL), RMMJS_CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(api.cuMemPoolTrimTo(pool, 0), RMMJS_CUDA_ERROR_INVALID_VALUE);
  EXPECT(strstr(Control("stats"), "\"liveDeviceBytes\":[0,3072]") != NULL);
  EXPECT_EQ(api.cuMemsetD8Async(a, 1, 1024, NULL), 0);
  EXPECT_EQ(api.cuMemFreeAsync(a, NULL), 0);
  EXPECT_EQ(api.cuMemFree(b), 0); /* cuMemFree takes pool memory too */
  EXPECT_EQ(Stat("liveAllocations"), 0);

  Control("set-attribute 0 115 0");
  EXPECT_EQ(api.cuDeviceGetDefaultMemPool(&again, 0), RMMJS_CUDA_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(mem_alloc_async(&c, 64, NULL), RMMJS_CUDA_ERROR_NOT_SUPPORTED);
}

static void TestFaults(void) {
  char out[256];
  InitAndSetDevice(0);
  Control("reset");
  EXPECT_EQ(Stat("cuMemAlloc_v2"), 0);

  rmmjs_CUdeviceptr pointers[3] = {0, 0, 0};
  Control("fail cuMemAlloc_v2 2 2");
  EXPECT_EQ(api.cuMemAlloc(&pointers[0], 64), 0);
  EXPECT_EQ(api.cuMemAlloc(&pointers[1], 64), RMMJS_CUDA_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(pointers[1], 0);
  EXPECT_EQ(Stat("liveAllocations"), 1);
  EXPECT_EQ(api.cuMemAlloc(&pointers[2], 64), 0);
  EXPECT_EQ(Stat("cuMemAlloc_v2"), 3);

  /* A failing call has no effect: this free does not happen. */
  Control("fail cuMemFree_v2 1 CUDA_ERROR_ILLEGAL_ADDRESS");
  EXPECT_EQ(api.cuMemFree(pointers[0]), 700);
  EXPECT_EQ(api.cuMemFree(pointers[0]), 0);
  EXPECT_EQ(api.cuMemFree(pointers[2]), 0);

  /* Faults come before everything, even the error functions and cuInit. */
  Control("fail-always cuGetErrorName 999");
  const char* name = NULL;
  EXPECT_EQ(api.cuGetErrorName(2, &name), 999);
  EXPECT_EQ(api.cuGetErrorName(2, &name), 999);
  EXPECT(name == NULL);
  Control("fail cuInit 1 100");
  EXPECT_EQ(api.cuInit(0), 100);
  Control("clear-faults");
  EXPECT_EQ(api.cuGetErrorName(2, &name), 0);

  Control("fail-always cuStreamSynchronize 700");
  EXPECT_EQ(api.cuStreamSynchronize(NULL), 700);
  EXPECT_EQ(api.cuStreamSynchronize(NULL), 700);
  Control("reset");
  EXPECT_EQ(api.cuStreamSynchronize(NULL), 0);
  EXPECT_EQ(Stat("cuStreamSynchronize"), 1);
  EXPECT_EQ(Stat("cuMemAlloc_v2"), 0);

  /* Bad commands say why. */
  EXPECT_EQ(control("launch-missiles", out, sizeof(out)), 1);
  EXPECT(strstr(out, "unknown command") != NULL);
  EXPECT_EQ(control("fail cuMemAlloc 1 2", out, sizeof(out)), 1);
  EXPECT(strstr(out, "did you mean cuMemAlloc_v2?") != NULL);
  EXPECT_EQ(control("fail cuMemAlloc_v2 0 2", out, sizeof(out)), 1);
  EXPECT_EQ(control("fail cuMemAlloc_v2 1 0", out, sizeof(out)), 1);
  EXPECT_EQ(control("fail cuMemAlloc_v2 1 NOT_AN_ERROR", out, sizeof(out)), 1);
  EXPECT_EQ(control("set-memory 5 100", out, sizeof(out)), 1);
  EXPECT_EQ(control("set-attribute 0 x 1", out, sizeof(out)), 1);
  EXPECT_EQ(control("stats extra", out, sizeof(out)), 1);
  EXPECT_EQ(control("stats", out, 10), 2); /* too small for the output */
  EXPECT_EQ(control("clear-faults", NULL, 0), 0);
  EXPECT_EQ(api.cuMemAlloc(&pointers[0], 64), 0); /* none of the bad commands armed anything */
  EXPECT_EQ(api.cuMemFree(pointers[0]), 0);
}

static void TestEnvironmentFaults(void) {
  /* RMMJS_FAKE_CUDA_FAIL=cuStreamQuery:2:600,cuInit:1:3 (set by main for this child). */
  EXPECT_EQ(api.cuInit(0), RMMJS_CUDA_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(api.cuInit(0), 0);
  rmmjs_CUcontext context = InitAndSetDevice(0);
  (void)context;
  EXPECT_EQ(api.cuStreamQuery(NULL), 0);
  EXPECT_EQ(api.cuStreamQuery(NULL), 600);
  EXPECT_EQ(api.cuStreamQuery(NULL), 0);
}

static void TestEnvironment(void) {
  /* RMMJS_FAKE_CUDA_DEVICES=3, _MEMORY=4096, _DRIVER_VERSION=12080, _PAGEABLE=1,
   * _IPC_HANDLE_TYPES=0 (set by main for this child). */
  int value = 0;
  EXPECT_EQ(api.cuDriverGetVersion(&value), 0);
  EXPECT_EQ(value, 12080);
  InitAndSetDevice(2);
  EXPECT_EQ(api.cuDeviceGetCount(&value), 0);
  EXPECT_EQ(value, 3);
  EXPECT_EQ(api.cuDeviceGetAttribute(&value, RMMJS_CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS, 2), 0);
  EXPECT_EQ(value, 1);
  EXPECT_EQ(api.cuDeviceGetAttribute(&value, RMMJS_CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES, 2), 0);
  EXPECT_EQ(value, 0);
  size_t free_bytes = 0, total_bytes = 0;
  EXPECT_EQ(api.cuMemGetInfo(&free_bytes, &total_bytes), 0);
  EXPECT_EQ(total_bytes, 4096);
  rmmjs_CUdeviceptr pointer = 0;
  EXPECT_EQ(api.cuMemAlloc(&pointer, 4097), RMMJS_CUDA_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(api.cuMemAlloc(&pointer, 4096), 0);
  EXPECT_EQ(api.cuMemFree(pointer), 0);
  rmmjs_CUmemPoolProps props;
  memset(&props, 0, sizeof(props));
  props.alloc_type = RMMJS_CU_MEM_ALLOCATION_TYPE_PINNED;
  props.location.type = RMMJS_CU_MEM_LOCATION_TYPE_DEVICE;
  props.handle_types = RMMJS_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  rmmjs_CUmemoryPool pool = NULL;
  EXPECT_EQ(api.cuMemPoolCreate(&pool, &props), RMMJS_CUDA_ERROR_NOT_SUPPORTED);
}

static void TestNoDevices(void) {
  /* RMMJS_FAKE_CUDA_DEVICES=0: cuInit fails as the driver does without a GPU. */
  EXPECT_EQ(api.cuInit(0), RMMJS_CUDA_ERROR_NO_DEVICE);
  int count = -1;
  EXPECT_EQ(api.cuDeviceGetCount(&count), RMMJS_CUDA_ERROR_NOT_INITIALIZED);
}

/* Runs body in a forked child (another process, with a copy of this one's driver state), which
 * fails the test when it does; returns once it ended. */
static void InAnotherProcess(void (*body)(void* argument), void* argument) {
  fflush(stderr);
  pid_t child = fork();
  if (child == 0) {
    body(argument);
    fflush(stderr);
    _exit(failures == 0 ? 0 : 1);
  }
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static int ReadByte(rmmjs_CUdeviceptr pointer) {
  unsigned char byte = 0;
  if (api.cuMemcpyAsync((rmmjs_CUdeviceptr)&byte, pointer, 1, 0) != 0) return -1;
  return byte;
}

static void OpenLegacyHandle(void* argument) {
  rmmjs_CUipcMemHandle handle;
  memcpy(&handle, argument, sizeof(handle));
  rmmjs_CUdeviceptr pointer = 0, again = 0;
  EXPECT_EQ(api.cuIpcOpenMemHandle(&pointer, handle, 0), RMMJS_CUDA_ERROR_INVALID_VALUE); /* flags */
  EXPECT_EQ(api.cuIpcOpenMemHandle(&pointer, handle, RMMJS_CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS), 0);
  /* A second open of the same handle is counted and returns the same address. */
  EXPECT_EQ(api.cuIpcOpenMemHandle(&again, handle, RMMJS_CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS), 0);
  EXPECT_EQ(again, pointer);
  EXPECT_EQ(ReadByte(pointer), 0x5A);
  EXPECT_EQ(ReadByte(pointer + 9999), 0x5A);
  EXPECT_EQ(api.cuMemsetD8Async(pointer + 100, 0xA5, 100, 0), 0);
  EXPECT_EQ(api.cuMemsetD8Async(pointer + 9999, 0xA5, 2, 0), RMMJS_CUDA_ERROR_INVALID_VALUE); /* past its end */
  unsigned int type = 0;
  EXPECT_EQ(api.cuPointerGetAttribute(&type, RMMJS_CU_POINTER_ATTRIBUTE_MEMORY_TYPE, pointer + 5), 0);
  EXPECT_EQ(type, RMMJS_CU_MEMORYTYPE_DEVICE);
  EXPECT_EQ(api.cuMemFree(pointer), RMMJS_CUDA_ERROR_INVALID_VALUE); /* closed, not freed */
  EXPECT_EQ(api.cuIpcCloseMemHandle(pointer), 0);
  EXPECT_EQ(api.cuIpcCloseMemHandle(pointer), 0);
  EXPECT_EQ(api.cuIpcCloseMemHandle(pointer), RMMJS_CUDA_ERROR_INVALID_VALUE); /* closed twice */
  EXPECT_EQ(Stat("liveAllocations"), 2);                                       /* the exporter's two, copied by fork */
  /* Bytes that are no handle of this driver. */
  rmmjs_CUipcMemHandle garbage;
  memset(&garbage, 0x42, sizeof(garbage));
  EXPECT_EQ(api.cuIpcOpenMemHandle(&pointer, garbage, RMMJS_CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS),
            RMMJS_CUDA_ERROR_INVALID_VALUE);
}

static void TestIpc(void) {
  InitAndSetDevice(0);
  rmmjs_CUuuid uuid;
  EXPECT_EQ(api.cuDeviceGetUuid(&uuid, 1), 0);
  EXPECT(memcmp(uuid.bytes, "fakecuda\0\0\0\0\0\0\0\1", 16) == 0);
  EXPECT_EQ(api.cuDeviceGetUuid(&uuid, 2), RMMJS_CUDA_ERROR_INVALID_DEVICE);

  rmmjs_CUdeviceptr base = 0, managed = 0;
  EXPECT_EQ(api.cuMemAlloc(&base, 10000), 0);
  EXPECT_EQ(api.cuMemsetD8Async(base, 0x5A, 10000, 0), 0);
  rmmjs_CUdeviceptr range_base = 0;
  size_t range_size = 0;
  EXPECT_EQ(api.cuMemGetAddressRange(&range_base, &range_size, base + 5000), 0);
  EXPECT_EQ(range_base, base);
  EXPECT_EQ(range_size, 10000);
  EXPECT_EQ(api.cuMemGetAddressRange(NULL, &range_size, base + 10000), RMMJS_CUDA_ERROR_NOT_FOUND);

  /* cuPointerGetAttributes: NULL values for memory the driver does not know. */
  int attributes[3] = {RMMJS_CU_POINTER_ATTRIBUTE_MEMORY_TYPE, RMMJS_CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                       RMMJS_CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE};
  unsigned int type = 99;
  rmmjs_CUdeviceptr start = 99;
  rmmjs_CUmemoryPool pool = (rmmjs_CUmemoryPool)&type;
  void* data[3] = {&type, &start, &pool};
  EXPECT_EQ(api.cuPointerGetAttributes(3, attributes, data, (rmmjs_CUdeviceptr)&range_size), 0);
  EXPECT(type == 0 && start == 0 && pool == NULL);
  EXPECT_EQ(api.cuPointerGetAttributes(3, attributes, data, base + 7), 0);
  EXPECT(type == RMMJS_CU_MEMORYTYPE_DEVICE && start == base && pool == NULL);

  rmmjs_CUipcMemHandle handle, again;
  EXPECT_EQ(api.cuIpcGetMemHandle(&handle, base + 512), RMMJS_CUDA_ERROR_INVALID_VALUE); /* not the base */
  EXPECT_EQ(api.cuMemAllocManaged(&managed, 4096, RMMJS_CU_MEM_ATTACH_GLOBAL), 0);
  EXPECT_EQ(api.cuIpcGetMemHandle(&handle, managed), RMMJS_CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(api.cuIpcGetMemHandle(&handle, base), 0);
  EXPECT_EQ(api.cuIpcGetMemHandle(&again, base), 0);
  EXPECT(memcmp(&handle, &again, sizeof(handle)) == 0);
  rmmjs_CUdeviceptr opened = 0;
  /* The driver refuses a handle of the calling process itself. */
  EXPECT_EQ(api.cuIpcOpenMemHandle(&opened, handle, RMMJS_CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS),
            RMMJS_CUDA_ERROR_INVALID_CONTEXT);
  InAnotherProcess(OpenLegacyHandle, &handle);
  /* The other process wrote into this one's memory. */
  EXPECT_EQ(ReadByte(base + 99), 0x5A);
  EXPECT_EQ(ReadByte(base + 100), 0xA5);
  EXPECT_EQ(ReadByte(base + 199), 0xA5);
  EXPECT_EQ(api.cuMemFree(base), 0);
  EXPECT_EQ(api.cuMemFree(managed), 0);
  /* Memory reallocated where freed memory was gets another handle. */
  rmmjs_CUdeviceptr reused = 0;
  EXPECT_EQ(api.cuMemAlloc(&reused, 10000), 0);
  EXPECT_EQ(reused, base);
  EXPECT_EQ(api.cuIpcGetMemHandle(&again, reused), 0);
  EXPECT(memcmp(&handle, &again, sizeof(handle)) != 0);
  EXPECT_EQ(api.cuMemFree(reused), 0);
}

struct PoolShareArgs {
  int fd;
  rmmjs_CUmemPoolPtrExportData data;
};

static void ImportPool(void* argument) {
  struct PoolShareArgs* share = argument;
  rmmjs_CUmemoryPool pool = NULL;
  EXPECT_EQ(api.cuMemPoolImportFromShareableHandle(&pool, (void*)(intptr_t)share->fd, RMMJS_CU_MEM_HANDLE_TYPE_NONE, 0),
            RMMJS_CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(api.cuMemPoolImportFromShareableHandle(&pool, (void*)(intptr_t)0,
                                                   RMMJS_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
            RMMJS_CUDA_ERROR_INVALID_VALUE); /* stdin is no pool */
  EXPECT_EQ(api.cuMemPoolImportFromShareableHandle(&pool, (void*)(intptr_t)share->fd,
                                                   RMMJS_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
            0);
  rmmjs_CUdeviceptr pointer = 0, again = 0;
  EXPECT_EQ(api.cuMemAllocFromPoolAsync(&pointer, 256, pool, 0), RMMJS_CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(api.cuMemPoolImportPointer(&pointer, pool, &share->data), 0);
  EXPECT_EQ(api.cuMemPoolImportPointer(&again, pool, &share->data), RMMJS_CUDA_ERROR_ALREADY_MAPPED);
  rmmjs_CUmemoryPool owner = NULL;
  EXPECT_EQ(api.cuPointerGetAttribute(&owner, RMMJS_CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, pointer), 0);
  EXPECT(owner == pool);
  EXPECT_EQ(ReadByte(pointer), 0x3C);
  EXPECT_EQ(ReadByte(pointer + 4095), 0x3C);
  EXPECT_EQ(api.cuMemsetD8Async(pointer + 1, 0xC3, 10, 0), 0);
  EXPECT_EQ(api.cuMemFreeAsync(pointer, 0), 0);
  EXPECT_EQ(api.cuMemFreeAsync(pointer, 0), RMMJS_CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(api.cuMemPoolDestroy(pool), 0);
}

static void TestPoolIpc(void) {
  InitAndSetDevice(1);
  rmmjs_CUmemPoolProps props;
  memset(&props, 0, sizeof(props));
  props.alloc_type = RMMJS_CU_MEM_ALLOCATION_TYPE_PINNED;
  props.location.type = RMMJS_CU_MEM_LOCATION_TYPE_DEVICE;
  props.location.id = 1;
  rmmjs_CUmemoryPool plain = NULL, pool = NULL;
  EXPECT_EQ(api.cuMemPoolCreate(&plain, &props), 0);
  props.handle_types = RMMJS_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  EXPECT_EQ(api.cuMemPoolCreate(&pool, &props), 0);
  struct PoolShareArgs share = {-1, {{0}}};
  EXPECT_EQ(api.cuMemPoolExportToShareableHandle(&share.fd, plain, RMMJS_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
            RMMJS_CUDA_ERROR_INVALID_VALUE); /* a pool without IPC */
  rmmjs_CUdeviceptr pointer = 0, unshared = 0;
  EXPECT_EQ(api.cuMemAllocFromPoolAsync(&unshared, 512, plain, 0), 0);
  EXPECT_EQ(api.cuMemPoolExportPointer(&share.data, unshared), RMMJS_CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(api.cuMemAllocFromPoolAsync(&pointer, 4096, pool, 0), 0);
  EXPECT_EQ(api.cuMemsetD8Async(pointer, 0x3C, 4096, 0), 0);
  EXPECT_EQ(api.cuMemPoolExportToShareableHandle(&share.fd, pool, RMMJS_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
            0);
  EXPECT(share.fd > 2);
  EXPECT_EQ(api.cuMemPoolExportPointer(&share.data, pointer + 512), RMMJS_CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(api.cuMemPoolExportPointer(&share.data, pointer), 0);
  rmmjs_CUmemoryPool same = NULL;
  EXPECT_EQ(api.cuMemPoolImportFromShareableHandle(&same, (void*)(intptr_t)share.fd,
                                                   RMMJS_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
            RMMJS_CUDA_ERROR_INVALID_VALUE); /* in the exporting process */
  InAnotherProcess(ImportPool, &share);
  EXPECT_EQ(ReadByte(pointer), 0x3C);
  EXPECT_EQ(ReadByte(pointer + 1), 0xC3);
  EXPECT_EQ(ReadByte(pointer + 10), 0xC3);
  EXPECT_EQ(ReadByte(pointer + 11), 0x3C);
  close(share.fd);
  EXPECT_EQ(api.cuMemFreeAsync(pointer, 0), 0);
  EXPECT_EQ(api.cuMemFreeAsync(unshared, 0), 0);
  EXPECT_EQ(api.cuMemPoolDestroy(pool), 0);
  EXPECT_EQ(api.cuMemPoolDestroy(plain), 0);
  EXPECT_EQ(Stat("liveAllocations"), 0);
}

enum { kThreads = 8, kRounds = 2000 };

static void* AllocateAndFree(void* argument) {
  int device = (int)(intptr_t)argument % 2;
  rmmjs_CUcontext context = NULL;
  EXPECT_EQ(api.cuDevicePrimaryCtxRetain(&context, device), 0);
  EXPECT_EQ(api.cuCtxSetCurrent(context), 0);
  rmmjs_CUstream stream = NULL;
  EXPECT_EQ(api.cuStreamCreateWithPriority(&stream, 0, 0), 0);
  for (int round = 0; round < kRounds; ++round) {
    rmmjs_CUdeviceptr pointer = 0;
    size_t bytes = 1 + (size_t)(round % 97) * 13;
    EXPECT_EQ(api.cuMemAllocFromPoolAsync(&pointer, bytes, NULL, stream), RMMJS_CUDA_ERROR_INVALID_VALUE);
    rmmjs_CUmemoryPool pool = NULL;
    EXPECT_EQ(api.cuDeviceGetDefaultMemPool(&pool, device), 0);
    int result =
        round % 2 ? api.cuMemAlloc(&pointer, bytes) : api.cuMemAllocFromPoolAsync(&pointer, bytes, pool, stream);
    EXPECT_EQ(result, 0);
    EXPECT_EQ(api.cuMemsetD8Async(pointer, (unsigned char)round, bytes, stream), 0);
    rmmjs_CUdevice current = -1;
    EXPECT_EQ(api.cuCtxGetDevice(&current), 0);
    EXPECT_EQ(current, device);
    EXPECT_EQ(round % 2 ? api.cuMemFree(pointer) : api.cuMemFreeAsync(pointer, stream), 0);
  }
  EXPECT_EQ(api.cuStreamDestroy(stream), 0);
  return NULL;
}

static void TestThreads(void) {
  EXPECT_EQ(api.cuInit(0), 0);
  pthread_t threads[kThreads];
  for (intptr_t i = 0; i < kThreads; ++i) {
    pthread_create(&threads[i], NULL, AllocateAndFree, (void*)i);
  }
  for (int i = 0; i < kThreads; ++i) pthread_join(threads[i], NULL);
  EXPECT_EQ(Stat("liveAllocations"), 0);
  EXPECT_EQ(Stat("liveStreams"), 0);
  EXPECT_EQ(Stat("cuMemsetD8Async"), kThreads * kRounds);
}

struct Scenario {
  const char* name;
  void (*run)(void);
  const char* environment; /* NAME=value pairs separated by spaces */
};

static int RunScenario(const struct Scenario* scenario) {
  fflush(stdout);
  pid_t child = fork();
  if (child == 0) {
    char environment[512];
    snprintf(environment, sizeof(environment), "%s", scenario->environment);
    for (char* pair = strtok(environment, " "); pair != NULL; pair = strtok(NULL, " ")) {
      putenv(strdup(pair));
    }
    Load();
    scenario->run();
    fflush(stderr);
    _exit(failures == 0 ? 0 : 1);
  }
  int status = 0;
  waitpid(child, &status, 0);
  int ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  printf("%s %s\n", ok ? "ok  " : "FAIL", scenario->name);
  return ok;
}

int main(int argc, char** argv) {
  if (argc > 1) library_path = argv[1];
  static const struct Scenario scenarios[] = {
      {"error names and descriptions", TestErrorNames, ""},
      {"init and devices", TestInitAndDevices, ""},
      {"contexts", TestContexts, ""},
      {"memory", TestMemory, ""},
      {"registered host memory", TestHostRegistration, ""},
      {"managed memory prefetch and advice", TestPrefetchAndAdvice, ""},
      {"streams and events", TestStreamsAndEvents, ""},
      {"streams and events of two devices", TestStreamsOfTwoDevices, ""},
      {"memory pools", TestPools, ""},
      {"CUDA IPC between processes", TestIpc, ""},
      {"memory pools shared between processes", TestPoolIpc, ""},
      {"fault injection", TestFaults, ""},
      {"faults from RMMJS_FAKE_CUDA_FAIL", TestEnvironmentFaults,
       "RMMJS_FAKE_CUDA_FAIL=cuStreamQuery:2:600,cuInit:1:CUDA_ERROR_NOT_INITIALIZED"},
      {"configuration from the environment", TestEnvironment,
       "RMMJS_FAKE_CUDA_DEVICES=3 RMMJS_FAKE_CUDA_MEMORY=4096 RMMJS_FAKE_CUDA_DRIVER_VERSION=12080 "
       "RMMJS_FAKE_CUDA_PAGEABLE=1 RMMJS_FAKE_CUDA_IPC_HANDLE_TYPES=0"},
      {"no devices", TestNoDevices, "RMMJS_FAKE_CUDA_DEVICES=0"},
      {"threads", TestThreads, ""},
  };
  int passed = 0, count = (int)(sizeof(scenarios) / sizeof(scenarios[0]));
  for (int i = 0; i < count; ++i) passed += RunScenario(&scenarios[i]);
  printf("%d of %d scenarios passed\n", passed, count);
  return passed == count ? 0 : 1;
}
