/*
 * rmmjs C ABI: the contract between @rmmjs/core and every native addon that allocates
 * through it (the adaptor packages, third-party libraries). Plain C, no CUDA headers.
 *
 * Versioning: a major bump breaks the layout; a minor bump only appends members to the end of
 * rmmjs_core_api, rmmjs_resource_ops or rmmjs_driver_api (rmmjs/cuda_driver.h).
 * - An addon accepts core's table when abi_major matches and table->size >= sizeof(rmmjs_core_api)
 *   it was compiled against (rmmjs_core_api_compatible below). An addon built against an older
 *   minor therefore works with a newer core; one built against a newer minor refuses an older core.
 *   An addon that wants members of a newer minor only when they exist compares core->size with
 *   RMMJS_CORE_API_SIZE_1_<minor> instead.
 * - Core accepts a resource's ops table when ops->size covers the 1.0 layout
 *   (RMMJS_RESOURCE_OPS_SIZE_1_0) and allocate, deallocate and destroy are set. A member appended
 *   in a later minor lies past the ops->size of a table built against an earlier one: readers
 *   treat it as absent (NULL) there (RMMJS_OPS_HAS). A table from a newer minor (a larger size)
 *   is accepted; members this header does not know are ignored.
 * - The driver table's layout is told by core->driver_version and core->driver_size (ABI 1.2;
 *   see rmmjs/cuda_driver.h).
 *
 * Threads. Core is thread-safe: these may be called from any thread, concurrently, JavaScript
 * threads or not (worker_threads, native thread pools, threads the addon made), and need no
 * CUDA context current (each makes the one it needs current and puts the caller's back):
 *   retain, release, allocate, deallocate, is_equal, the registry (get_current_device_resource,
 *   get_per_device_resource, set_per_device_resource), cuda_available, driver, get_device_count,
 *   get_current_device, context_push / context_restore (on the same thread, nested), the stream
 *   and event helpers (stream_check_device too), memcpy_async, memset_async, mem_get_info, prefetch, stream_id,
 *   device_synchronize, the logger, and set_error / error_message / error_cuda_code (the error
 *   is the calling thread's own: error_message() stays valid until that thread's next call).
 * Not thread-safe: initialising a resource's header (resource_init_checked, resource_init), which
 * its creating thread does before it shares the resource; and a reference itself: any thread may
 * release one, but each is released once, by the thread that owns it at the time. The
 * napi_external handles (rmmjs_resource_handle) are JavaScript values and follow Node-API's rule:
 * only the JavaScript thread they belong to touches them.
 * A resource implementation must be as thread-safe as core: allocate, deallocate, is_equal and
 * get_upstream may run on any thread, at once; destroy runs once, on whichever thread releases the
 * last reference. The exception is a resource flagged RMMJS_RESOURCE_CALLS_JS (a JavaScript
 * callback resource, or an adaptor over one): its JavaScript runs only on the JavaScript thread
 * that created it, while that thread's environment exists. A call from any other thread (another
 * worker, a native thread, a thread-pool thread) or after that environment ended runs no
 * JavaScript and fails with RMMJS_ERR_WRONG_THREAD (an adaptor whose own JavaScript cannot run
 * may instead let the upstream's failure stand, saying why in the message). Its operations may
 * drop the last JavaScript reference to it, so callers hold a reference across each call.
 */
#ifndef RMMJS_ABI_H
#define RMMJS_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RMMJS_ABI_MAJOR 1
#define RMMJS_ABI_MINOR 4

/* Every allocation a resource hands out is aligned to this many bytes. */
#define RMMJS_ALLOCATION_ALIGNMENT 256

/* Type tags of the napi_external values that carry native objects into JavaScript. */
#define RMMJS_TAG_RESOURCE_LOWER 0x726d6d6a73526573ULL /* "rmmjsRes" */
#define RMMJS_TAG_RESOURCE_UPPER 0x6f75726365763031ULL /* "ourcev01" */
#define RMMJS_TAG_CORE_API_LOWER 0x726d6d6a73415049ULL /* "rmmjsAPI" */
#define RMMJS_TAG_CORE_API_UPPER 0x7461626c65763031ULL /* "tablev01" */

typedef enum rmmjs_status {
  RMMJS_OK = 0,
  RMMJS_ERR_OUT_OF_MEMORY = 1,    /* OutOfMemoryError, ERR_RMM_OUT_OF_MEMORY */
  RMMJS_ERR_LOGIC = 2,            /* RMMError, ERR_RMM_LOGIC */
  RMMJS_ERR_CUDA = 3,             /* CudaError, ERR_CUDA (cuda_code is set) */
  RMMJS_ERR_INVALID_ARGUMENT = 4, /* TypeError, ERR_INVALID_ARG_VALUE */
  RMMJS_ERR_OUT_OF_RANGE = 5,     /* RangeError, ERR_OUT_OF_RANGE */
  RMMJS_ERR_DISPOSED = 6,         /* RMMError, ERR_RMM_DISPOSED */
  RMMJS_ERR_DRIVER_NOT_FOUND = 7, /* CudaError, ERR_CUDA_DRIVER_NOT_FOUND */
  RMMJS_ERR_NO_DEVICE = 8,        /* CudaError, ERR_CUDA_NO_DEVICE */
  RMMJS_ERR_WRONG_THREAD = 9,     /* RMMError, ERR_RMM_WRONG_THREAD: JS callback from a foreign thread */
  /* A JavaScript callback threw inside a native chain. The addon that called it took the error
   * (napi_get_and_clear_last_exception: Node-API keeps pending exceptions per addon) and handed
   * it to core's holdJsException (from '@rmmjs/core/addon'); propagate the status unchanged
   * and the top-level binding throws that same error object. */
  RMMJS_ERR_JS_EXCEPTION = 10
} rmmjs_status;

/* A CUstream as an integer: 0 is the legacy default stream, 1 CU_STREAM_LEGACY,
 * 2 CU_STREAM_PER_THREAD. In host mode streams are opaque non-zero tokens. */
typedef uintptr_t rmmjs_stream;
/* A CUevent as an opaque pointer (a token in host mode). */
typedef struct rmmjs_event_st* rmmjs_event;

typedef struct rmmjs_resource rmmjs_resource;

/* Resource flags */
#define RMMJS_RESOURCE_DEVICE_ACCESSIBLE 0x1u
#define RMMJS_RESOURCE_HOST_ACCESSIBLE 0x2u
/* Allocation may run JavaScript (a callback resource, or an adaptor over one): callers keep the
 * resource alive across the call, since the JavaScript could drop the last reference. Adaptors
 * pass on their upstreams' flags. */
#define RMMJS_RESOURCE_CALLS_JS 0x4u
/* Deallocation runs JavaScript too (a JavaScript callback resource, or an adaptor over one), so its
 * memory can be freed only on the JavaScript thread that created it: core refuses to transfer a
 * DeviceBuffer of it to another thread (RMMJS_ERR_WRONG_THREAD). Adaptors pass it on with their
 * upstreams' flags. A flag, not a member: cores that predate it ignore it. */
#define RMMJS_RESOURCE_THREAD_BOUND 0x8u

typedef struct rmmjs_resource_ops {
  size_t size;           /* sizeof(rmmjs_resource_ops) the implementation was built with */
  const char* type_name; /* class name in JavaScript, e.g. "PoolMemoryResource" */
  /* bytes > 0 (callers never pass 0). On success *out is 256-byte aligned. On failure:
   * set the error with core->set_error (or return RMMJS_ERR_JS_EXCEPTION) and return it. */
  rmmjs_status (*allocate)(rmmjs_resource* self, size_t bytes, rmmjs_stream stream, void** out);
  rmmjs_status (*deallocate)(rmmjs_resource* self, void* ptr, size_t bytes, rmmjs_stream stream);
  /* Non-zero when memory allocated by one can be freed by the other. May be NULL (identity). */
  int (*is_equal)(const rmmjs_resource* self, const rmmjs_resource* other);
  /* Called once, when the last reference is released. Releases upstreams, frees self. */
  void (*destroy)(rmmjs_resource* self);
  /* The upstream resource (borrowed), or NULL for a base resource. May be NULL. */
  rmmjs_resource* (*get_upstream)(const rmmjs_resource* self);
} rmmjs_resource_ops;

/* Whether ops (a table core accepted) has `member`: false for a member appended in a later minor
 * than the one the table was built against. */
#define RMMJS_OPS_HAS(ops, member) ((ops)->size >= offsetof(rmmjs_resource_ops, member) + sizeof((ops)->member))
/* sizeof(rmmjs_resource_ops) in ABI 1.0 (to 1.2): the smallest table core accepts. */
#define RMMJS_RESOURCE_OPS_SIZE_1_0 (offsetof(rmmjs_resource_ops, get_upstream) + sizeof(void*))

/* The header every resource starts with. Initialise with core->resource_init_checked. */
struct rmmjs_resource {
  const rmmjs_resource_ops* ops;
  /* Touched only through core->retain / core->release: the last release also takes the resource
   * out of core's table of resources shared with other threads (DeviceMemoryResource#share). */
  int64_t refcount;
  int32_t device; /* the CUDA device it was created for (0 in host mode) */
  uint32_t flags; /* RMMJS_RESOURCE_* */
  void* reserved[2];
};

typedef enum rmmjs_log_level {
  RMMJS_LOG_TRACE = 0,
  RMMJS_LOG_DEBUG = 1,
  RMMJS_LOG_INFO = 2,
  RMMJS_LOG_WARN = 3,
  RMMJS_LOG_ERROR = 4,
  RMMJS_LOG_CRITICAL = 5,
  RMMJS_LOG_OFF = 6
} rmmjs_log_level;

/* What a resource's napi_external (tagged RMMJS_TAG_RESOURCE_*) points to. The handle owns one
 * reference; disposing it from JavaScript releases that reference and sets resource to NULL.
 * magic is RMMJS_RESOURCE_HANDLE_MAGIC: hot paths check it instead of the type tag. */
#define RMMJS_RESOURCE_HANDLE_MAGIC 0x726d6d6a7348646cULL /* "rmmjsHdl" */
typedef struct rmmjs_resource_handle {
  uint64_t magic;
  rmmjs_resource* resource;
} rmmjs_resource_handle;

/* Memory that someone other than a resource owns, lent to a DeviceBuffer: what a DLPack producer
 * or a CUDA IPC mapping hands over, or a hold on a DeviceBuffer's own memory. It travels between an
 * addon and core as a napi_external tagged RMMJS_TAG_MEMORY_* that points to a rmmjs_memory_handle
 * (see '@rmmjs/core/addon': adoptMemory makes a DeviceBuffer over it, holdMemory makes one of a
 * buffer's memory).
 * - release gives the memory back (closes a mapping, calls a producer's deleter, deallocates) and
 *   frees the struct. It is called exactly once, by whoever owns the memory last, on any thread,
 *   with any or no CUDA context current; it never calls JavaScript.
 * - size is sizeof(rmmjs_memory) of its maker: members appended later are absent below it. */
typedef struct rmmjs_memory rmmjs_memory;
struct rmmjs_memory {
  size_t size;
  void* ptr;      /* the first byte (NULL only when bytes is 0) */
  size_t bytes;   /* how many bytes from ptr the owner lends */
  int32_t device; /* the CUDA device of the memory (0 for host memory and in host mode) */
  uint32_t flags; /* RMMJS_MEMORY_*; 0 when none applies */
  void (*release)(rmmjs_memory* self);
};

/* Memory flags. The memory goes back to a resource flagged RMMJS_RESOURCE_THREAD_BOUND (a hold on a
 * buffer of one, or memory lent by a holder of such a share): core refuses to transfer a
 * DeviceBuffer over it to another thread (RMMJS_ERR_WRONG_THREAD). Whoever lends memory it got from
 * someone else passes the flag on. A flag: cores that predate it ignore it. */
#define RMMJS_MEMORY_THREAD_BOUND 0x1u

#define RMMJS_TAG_MEMORY_LOWER 0x726d6d6a734d656dULL    /* "rmmjsMem" */
#define RMMJS_TAG_MEMORY_UPPER 0x6f72796c656e7431ULL    /* "orylent1" */
#define RMMJS_MEMORY_HANDLE_MAGIC 0x726d6d6a734d6864ULL /* "rmmjsMhd" */
/* What a memory napi_external points to. The handle owns the memory until a consumer takes it by
 * setting memory to NULL; the external's finalizer releases memory nobody took. */
typedef struct rmmjs_memory_handle {
  uint64_t magic;
  rmmjs_memory* memory;
} rmmjs_memory_handle;

/* A veto on giving a DeviceBuffer's memory back: a buffer whose memory another process maps (an
 * exported CUDA IPC handle) refuses free() while that process uses it. It travels as a
 * napi_external tagged RMMJS_TAG_BUFFER_GUARD_* that points to a rmmjs_buffer_guard_handle (see
 * '@rmmjs/core/addon': guardBuffer). Both functions run on the buffer's JavaScript thread and never
 * call JavaScript.
 * - check: RMMJS_OK when the buffer may give back or move its memory (ptr, bytes: the whole
 *   allocation) now; else set the error (core->set_error) and return it: free() throws it and the
 *   buffer keeps its memory, and a resize that would move it fails. A buffer collected without
 *   free() gives its memory back all the same and logs the refusal.
 * - destroy: once, when the guarded memory is given back or moved, or the buffer goes; frees self.
 * - size is sizeof(rmmjs_buffer_guard) of its maker. */
typedef struct rmmjs_buffer_guard rmmjs_buffer_guard;
struct rmmjs_buffer_guard {
  size_t size;
  rmmjs_status (*check)(rmmjs_buffer_guard* self, void* ptr, size_t bytes);
  void (*destroy)(rmmjs_buffer_guard* self);
};

#define RMMJS_TAG_BUFFER_GUARD_LOWER 0x726d6d6a73477264ULL    /* "rmmjsGrd" */
#define RMMJS_TAG_BUFFER_GUARD_UPPER 0x4275666665723031ULL    /* "Buffer01" */
#define RMMJS_BUFFER_GUARD_HANDLE_MAGIC 0x726d6d6a73476864ULL /* "rmmjsGhd" */
/* What a buffer guard napi_external points to: owned until taken (guard set to NULL); the
 * external's finalizer destroys a guard nobody took. */
typedef struct rmmjs_buffer_guard_handle {
  uint64_t magic;
  rmmjs_buffer_guard* guard;
} rmmjs_buffer_guard_handle;

struct rmmjs_driver_api; /* rmmjs/cuda_driver.h */

/* Device memory that a JavaScript object owns, tracked as core tracks DeviceBuffers (ABI 1.4:
 * track_owner below). Opaque. */
typedef struct rmmjs_tracked_owner rmmjs_tracked_owner;
/* Node-API's napi_env and napi_value (node_api.h), declared so that this header needs no Node. */
struct napi_env__;
struct napi_value__;

typedef struct rmmjs_core_api {
  uint32_t abi_major;
  uint32_t abi_minor;
  size_t size; /* sizeof(rmmjs_core_api) of the core that made it */

  /* --- resources --- */
  /* Since 1.2 prefer resource_init_checked, which can report a refused ops table. This one
   * cannot: it makes a refused resource one whose allocate and deallocate fail with
   * RMMJS_ERR_LOGIC and the reason, and whose last release frees nothing (ops->destroy is not
   * trusted). refcount 1. */
  void (*resource_init)(rmmjs_resource* mr, const rmmjs_resource_ops* ops, int32_t device, uint32_t flags);
  void (*retain)(rmmjs_resource* mr);
  void (*release)(rmmjs_resource* mr); /* destroys at zero */
  /* ops->allocate / ops->deallocate with size 0 handled (0 -> NULL, no call). */
  rmmjs_status (*allocate)(rmmjs_resource* mr, size_t bytes, rmmjs_stream stream, void** out);
  rmmjs_status (*deallocate)(rmmjs_resource* mr, void* ptr, size_t bytes, rmmjs_stream stream);
  int (*is_equal)(const rmmjs_resource* a, const rmmjs_resource* b);

  /* --- the process-wide per-device registry (returned resources are retained) --- */
  rmmjs_status (*get_current_device_resource)(rmmjs_resource** out);
  rmmjs_status (*get_per_device_resource)(int32_t device, rmmjs_resource** out);
  /* Retains mr; *previous (if not NULL) receives the old resource, retained. */
  rmmjs_status (*set_per_device_resource)(int32_t device, rmmjs_resource* mr, rmmjs_resource** previous);

  /* --- devices and contexts --- */
  int (*cuda_available)(void);                    /* 1 with a driver and a device, 0 in host mode */
  const struct rmmjs_driver_api* (*driver)(void); /* NULL in host mode */
  rmmjs_status (*get_device_count)(int32_t* count);
  rmmjs_status (*get_current_device)(int32_t* device);
  /* Make device's primary context current on this thread; *saved receives what to give back
   * to context_restore. No-op in host mode. */
  rmmjs_status (*context_push)(int32_t device, void** saved);
  void (*context_restore)(void* saved);

  /* --- streams and events (synchronous no-ops in host mode) --- */
  rmmjs_status (*stream_synchronize)(rmmjs_stream stream);
  rmmjs_status (*event_create)(rmmjs_event* out); /* timing disabled */
  rmmjs_status (*event_destroy)(rmmjs_event event);
  rmmjs_status (*event_record)(rmmjs_event event, rmmjs_stream stream);
  rmmjs_status (*event_synchronize)(rmmjs_event event);
  rmmjs_status (*stream_wait_event)(rmmjs_stream stream, rmmjs_event event);

  /* --- memory helpers --- */
  rmmjs_status (*memcpy_async)(void* dst, const void* src, size_t bytes, rmmjs_stream stream);
  rmmjs_status (*memset_async)(void* dst, int value, size_t bytes, rmmjs_stream stream);
  rmmjs_status (*mem_get_info)(int32_t device, size_t* free_bytes, size_t* total_bytes);
  /* Prefetch managed memory to device on stream; no-op for memory that is not managed. */
  rmmjs_status (*prefetch)(void* ptr, size_t bytes, int32_t device, rmmjs_stream stream);

  /* --- errors: a thread-local (status, message, CUDA code) --- */
  rmmjs_status (*set_error)(rmmjs_status status, int cuda_code, const char* message);
  const char* (*error_message)(void);
  int (*error_cuda_code)(void);

  /* --- the debug logger (RMM_DEBUG_LOG_FILE or stderr) --- */
  int (*should_log)(rmmjs_log_level level);
  void (*log)(rmmjs_log_level level, const char* message);
  void (*log_flush)(void);

  /* --- ABI 1.1 --- */
  /* A process-unique id of the stream (cuStreamGetId): a destroyed stream's handle can be reused
   * by a new stream, its id cannot. Key per-stream state by it. Host mode: the handle. */
  rmmjs_status (*stream_id)(rmmjs_stream stream, uint64_t* id);
  /* Waits for all work on the device (cuCtxSynchronize in its primary context). Host mode: no-op. */
  rmmjs_status (*device_synchronize)(int32_t device);

  /* --- ABI 1.2 --- */
  /* Initialises mr's header (refcount 1) after checking ops: NULL, a size smaller than
   * RMMJS_RESOURCE_OPS_SIZE_1_0, or a NULL allocate, deallocate or destroy is refused with
   * RMMJS_ERR_INVALID_ARGUMENT and a message saying what is wrong; mr is then untouched and
   * still the caller's to free. */
  rmmjs_status (*resource_init_checked)(rmmjs_resource* mr, const rmmjs_resource_ops* ops, int32_t device,
                                        uint32_t flags);
  /* The layout of the table driver() returns (rmmjs/cuda_driver.h): its version
   * (RMMJS_DRIVER_API_VERSION of this core) and size (sizeof(rmmjs_driver_api) of this core).
   * Entry points are only appended, so one exists when its member lies within driver_size
   * (RMMJS_DRIVER_HAS). Before 1.2 these members are absent and the table is version 1. */
  uint32_t driver_version;
  size_t driver_size;

  /* --- ABI 1.3 --- */
  /* Whether work of `device`'s primary context (the context every resource uses) may be ordered
   * on `stream` with events: an event records only on a stream of its own context
   * (cuEventRecord). RMMJS_OK for a stream created in that context, for the default streams (0,
   * CU_STREAM_LEGACY, CU_STREAM_PER_THREAD: per-context handles, always the current context's)
   * and in host mode. A stream of another context (another device's, or another context of the
   * same device) is RMMJS_ERR_INVALID_ARGUMENT, with a message that names the stream's device and
   * `device`; a failing driver call (a destroyed stream) is RMMJS_ERR_CUDA. A driver call
   * (cuStreamGetCtx) for a created stream: stream-ordered resources check each stream once. */
  rmmjs_status (*stream_check_device)(rmmjs_stream stream, int32_t device);

  /* --- ABI 1.4 --- */
  /* Memory a JavaScript object owns (a DLPack capsule that holds a buffer's memory, say), made to
   * behave as a DeviceBuffer does under the garbage collector: its bytes count as the isolate's
   * external memory (napi_adjust_external_memory), so the collector feels them; and when the
   * collector has found the object unreachable but its finalizer has not run yet (Node-API runs
   * finalizers only when the event loop turns), an allocation of rmmjs on that thread that is about
   * to report out of memory first calls reclaim(data), and retries.
   * Both run only on the object's JavaScript thread:
   * - track_owner: env is the caller's napi_env, object the object or external that owns the memory
   *   (held weakly), bytes what it holds. *out receives the owner. RMMJS_ERR_INVALID_ARGUMENT for a
   *   NULL argument or an object Node-API cannot reference.
   * - reclaim(data) gives the memory back now, calls no JavaScript and returns the bytes it gave
   *   back (0 when there was nothing left, e.g. a capsule whose tensor a consumer took). It runs at
   *   most once; the owner is then gone (core untracks it): reclaim must forget it, and the
   *   finalizer must find nothing left to do.
   * - untrack_owner: the object let go of its memory (consumed, disposed, finalized): its bytes stop
   *   counting and reclaim will not be called. Once per owner, unless reclaim ran. */
  rmmjs_status (*track_owner)(struct napi_env__* env, struct napi_value__* object, size_t bytes,
                              size_t (*reclaim)(void* data), void* data, rmmjs_tracked_owner** out);
  void (*untrack_owner)(rmmjs_tracked_owner* owner);
} rmmjs_core_api;

/* sizeof(rmmjs_core_api) of each minor: core->size >= RMMJS_CORE_API_SIZE_1_<n> means the members
 * of ABI 1.<n> are there. */
#define RMMJS_CORE_API_SIZE_1_0 (offsetof(rmmjs_core_api, log_flush) + sizeof(void*))
#define RMMJS_CORE_API_SIZE_1_1 (offsetof(rmmjs_core_api, device_synchronize) + sizeof(void*))
#define RMMJS_CORE_API_SIZE_1_2 (offsetof(rmmjs_core_api, driver_size) + sizeof(size_t))
#define RMMJS_CORE_API_SIZE_1_3 (offsetof(rmmjs_core_api, stream_check_device) + sizeof(void*))
#define RMMJS_CORE_API_SIZE_1_4 (offsetof(rmmjs_core_api, untrack_owner) + sizeof(void*))

/* Whether an addon compiled against this header can use core's table: the same major, and at
 * least the members this header declares. */
static inline int rmmjs_core_api_compatible(const rmmjs_core_api* core) {
  return core != NULL && core->abi_major == RMMJS_ABI_MAJOR && core->size >= sizeof(rmmjs_core_api);
}

#ifdef __cplusplus
}
#endif

#endif /* RMMJS_ABI_H */
