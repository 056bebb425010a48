/*
 * A test-only addon that lends memory to rmmjs and holds rmmjs's memory, as a third-party library
 * would (plain C, only rmmjs/abi.h and node_api.h): the memory handles and buffer guards of the C
 * ABI, made and taken by hand.
 *
 *   lend(bytes, device) -> memory handle over malloc'ed memory (device: what the memory says)
 *   take(handle) -> id        takes the memory out of a handle (this addon then owns it)
 *   pointer(id) -> bigint, bytes(id) -> number
 *   write(id, offset, byte)   writes one byte of owned memory; read(id, offset) -> byte
 *   release(id)               releases owned memory on this thread
 *   releaseOnThread(id)       releases owned memory on a thread of its own (joined)
 *   released() -> number      how many memories this addon lent were released so far
 *   guard(message) -> guard handle; its check refuses with RMMJS_ERR_LOGIC message while
 *                   setRefusing(true); guardEvents() -> [checks, destroyed]
 */
#include <node_api.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rmmjs/abi.h"

static const rmmjs_core_api* api = NULL;
static const napi_type_tag memory_tag = {RMMJS_TAG_MEMORY_LOWER, RMMJS_TAG_MEMORY_UPPER};
static const napi_type_tag guard_tag = {RMMJS_TAG_BUFFER_GUARD_LOWER, RMMJS_TAG_BUFFER_GUARD_UPPER};
static const napi_type_tag api_tag = {RMMJS_TAG_CORE_API_LOWER, RMMJS_TAG_CORE_API_UPPER};

static atomic_int released_count;
static atomic_int guard_checks;
static atomic_int guards_destroyed;
static int refusing = 0;

enum { kMaxOwned = 64 };
static rmmjs_memory* owned[kMaxOwned];

static int args(napi_env env, napi_callback_info info, size_t count, napi_value* argv) {
  size_t argc = count;
  return napi_get_cb_info(env, info, &argc, argv, NULL, NULL) == napi_ok && argc == count;
}

static napi_value number(napi_env env, double value) {
  napi_value result;
  napi_create_double(env, value, &result);
  return result;
}

static napi_value init(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  bool tagged = false;
  void* data = NULL;
  if (!args(env, info, 1, argv) || napi_check_object_type_tag(env, argv[0], &api_tag, &tagged) != napi_ok || !tagged ||
      napi_get_value_external(env, argv[0], &data) != napi_ok || !rmmjs_core_api_compatible(data)) {
    napi_throw_type_error(env, NULL, "init expects core's API table");
    return NULL;
  }
  api = data;
  return NULL;
}

/* --- lending: memory this addon owns, lent to a DeviceBuffer --- */

static void release_lent(rmmjs_memory* self) {
  free(self->ptr);
  free(self);
  atomic_fetch_add(&released_count, 1);
}

static void finalize_memory_handle(napi_env env, void* data, void* hint) {
  rmmjs_memory_handle* handle = data;
  if (handle->memory != NULL) handle->memory->release(handle->memory);
  free(handle);
}

static napi_value lend(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  double bytes = 0;
  int32_t device = 0;
  if (!args(env, info, 2, argv) || napi_get_value_double(env, argv[0], &bytes) != napi_ok ||
      napi_get_value_int32(env, argv[1], &device) != napi_ok) {
    napi_throw_type_error(env, NULL, "lend(bytes, device)");
    return NULL;
  }
  rmmjs_memory* memory = calloc(1, sizeof(*memory));
  memory->size = sizeof(*memory);
  memory->bytes = (size_t)bytes;
  memory->ptr = memory->bytes > 0 ? aligned_alloc(RMMJS_ALLOCATION_ALIGNMENT, (memory->bytes + 255) / 256 * 256) : NULL;
  memory->device = device;
  memory->release = release_lent;
  if (memory->ptr != NULL) memset(memory->ptr, 0x11, memory->bytes);
  rmmjs_memory_handle* handle = malloc(sizeof(*handle));
  handle->magic = RMMJS_MEMORY_HANDLE_MAGIC;
  handle->memory = memory;
  napi_value external;
  napi_create_external(env, handle, finalize_memory_handle, NULL, &external);
  napi_type_tag_object(env, external, &memory_tag);
  return external;
}

/* --- holding: memory rmmjs lends to this addon --- */

static int owned_arg(napi_env env, napi_value value) {
  int32_t id = -1;
  if (napi_get_value_int32(env, value, &id) != napi_ok || id < 0 || id >= kMaxOwned || owned[id] == NULL) {
    napi_throw_range_error(env, NULL, "no such memory");
    return -1;
  }
  return id;
}

static napi_value take(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  bool tagged = false;
  void* data = NULL;
  if (!args(env, info, 1, argv) || napi_check_object_type_tag(env, argv[0], &memory_tag, &tagged) != napi_ok ||
      !tagged || napi_get_value_external(env, argv[0], &data) != napi_ok ||
      ((rmmjs_memory_handle*)data)->magic != RMMJS_MEMORY_HANDLE_MAGIC) {
    napi_throw_type_error(env, NULL, "take expects a memory handle");
    return NULL;
  }
  rmmjs_memory_handle* handle = data;
  if (handle->memory == NULL) {
    napi_throw_error(env, NULL, "the handle's memory was taken");
    return NULL;
  }
  for (int id = 0; id < kMaxOwned; id++) {
    if (owned[id] == NULL) {
      owned[id] = handle->memory;
      handle->memory = NULL;
      return number(env, id);
    }
  }
  napi_throw_error(env, NULL, "too many");
  return NULL;
}

static napi_value pointer(napi_env env, napi_callback_info info) {
  napi_value argv[1], result;
  int id = args(env, info, 1, argv) ? owned_arg(env, argv[0]) : -1;
  if (id < 0) return NULL;
  napi_create_bigint_uint64(env, (uint64_t)(uintptr_t)owned[id]->ptr, &result);
  return result;
}

static napi_value bytes(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  int id = args(env, info, 1, argv) ? owned_arg(env, argv[0]) : -1;
  return id < 0 ? NULL : number(env, (double)owned[id]->bytes);
}

/* One byte through core's copies (the memory may be device memory). */
static napi_value access_byte(napi_env env, napi_callback_info info, int writing) {
  napi_value argv[3];
  int id = args(env, info, writing ? 3 : 2, argv) ? owned_arg(env, argv[0]) : -1;
  double offset = 0;
  int32_t value = 0;
  if (id < 0 || napi_get_value_double(env, argv[1], &offset) != napi_ok ||
      (writing && napi_get_value_int32(env, argv[2], &value) != napi_ok) || offset >= (double)owned[id]->bytes) {
    if (id >= 0) napi_throw_range_error(env, NULL, "bad offset");
    return NULL;
  }
  unsigned char byte = (unsigned char)value;
  char* at = (char*)owned[id]->ptr + (size_t)offset;
  rmmjs_status status = writing ? api->memcpy_async(at, &byte, 1, 0) : api->memcpy_async(&byte, at, 1, 0);
  if (status == RMMJS_OK) status = api->stream_synchronize(0);
  if (status != RMMJS_OK) {
    napi_throw_error(env, NULL, api->error_message());
    return NULL;
  }
  return number(env, byte);
}

static napi_value write_byte(napi_env env, napi_callback_info info) { return access_byte(env, info, 1); }
static napi_value read_byte(napi_env env, napi_callback_info info) { return access_byte(env, info, 0); }

static rmmjs_memory* untake(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  int id = args(env, info, 1, argv) ? owned_arg(env, argv[0]) : -1;
  if (id < 0) return NULL;
  rmmjs_memory* memory = owned[id];
  owned[id] = NULL;
  return memory;
}

static napi_value release(napi_env env, napi_callback_info info) {
  rmmjs_memory* memory = untake(env, info);
  if (memory != NULL) memory->release(memory);
  return NULL;
}

static void* release_thread(void* memory) {
  ((rmmjs_memory*)memory)->release(memory);
  return NULL;
}

static napi_value release_on_thread(napi_env env, napi_callback_info info) {
  rmmjs_memory* memory = untake(env, info);
  if (memory == NULL) return NULL;
  pthread_t thread;
  pthread_create(&thread, NULL, release_thread, memory);
  pthread_join(thread, NULL);
  return NULL;
}

static napi_value released(napi_env env, napi_callback_info info) { return number(env, atomic_load(&released_count)); }

/* --- a guard --- */

typedef struct test_guard {
  rmmjs_buffer_guard header;
  char message[128];
} test_guard;

static rmmjs_status check_guard(rmmjs_buffer_guard* self, void* ptr, size_t size) {
  atomic_fetch_add(&guard_checks, 1);
  if (!refusing) return RMMJS_OK;
  return api->set_error(RMMJS_ERR_LOGIC, 0, ((test_guard*)self)->message);
}

static void destroy_guard(rmmjs_buffer_guard* self) {
  atomic_fetch_add(&guards_destroyed, 1);
  free(self);
}

static void finalize_guard_handle(napi_env env, void* data, void* hint) {
  rmmjs_buffer_guard_handle* handle = data;
  if (handle->guard != NULL) handle->guard->destroy(handle->guard);
  free(handle);
}

static napi_value guard(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  test_guard* guard = calloc(1, sizeof(*guard));
  size_t length = 0;
  if (!args(env, info, 1, argv) ||
      napi_get_value_string_utf8(env, argv[0], guard->message, sizeof(guard->message), &length) != napi_ok) {
    free(guard);
    napi_throw_type_error(env, NULL, "guard(message)");
    return NULL;
  }
  guard->header.size = sizeof(rmmjs_buffer_guard);
  guard->header.check = check_guard;
  guard->header.destroy = destroy_guard;
  rmmjs_buffer_guard_handle* handle = malloc(sizeof(*handle));
  handle->magic = RMMJS_BUFFER_GUARD_HANDLE_MAGIC;
  handle->guard = &guard->header;
  napi_value external;
  napi_create_external(env, handle, finalize_guard_handle, NULL, &external);
  napi_type_tag_object(env, external, &guard_tag);
  return external;
}

static napi_value set_refusing(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  bool value = false;
  if (args(env, info, 1, argv)) napi_get_value_bool(env, argv[0], &value);
  refusing = value;
  return NULL;
}

static napi_value guard_events(napi_env env, napi_callback_info info) {
  napi_value result;
  napi_create_array_with_length(env, 2, &result);
  napi_set_element(env, result, 0, number(env, atomic_load(&guard_checks)));
  napi_set_element(env, result, 1, number(env, atomic_load(&guards_destroyed)));
  return result;
}

NAPI_MODULE_INIT() {
  napi_property_descriptor properties[] = {
      {"init", NULL, init, NULL, NULL, NULL, napi_default, NULL},
      {"lend", NULL, lend, NULL, NULL, NULL, napi_default, NULL},
      {"take", NULL, take, NULL, NULL, NULL, napi_default, NULL},
      {"pointer", NULL, pointer, NULL, NULL, NULL, napi_default, NULL},
      {"bytes", NULL, bytes, NULL, NULL, NULL, napi_default, NULL},
      {"write", NULL, write_byte, NULL, NULL, NULL, napi_default, NULL},
      {"read", NULL, read_byte, NULL, NULL, NULL, napi_default, NULL},
      {"release", NULL, release, NULL, NULL, NULL, napi_default, NULL},
      {"releaseOnThread", NULL, release_on_thread, NULL, NULL, NULL, napi_default, NULL},
      {"released", NULL, released, NULL, NULL, NULL, napi_default, NULL},
      {"guard", NULL, guard, NULL, NULL, NULL, napi_default, NULL},
      {"setRefusing", NULL, set_refusing, NULL, NULL, NULL, napi_default, NULL},
      {"guardEvents", NULL, guard_events, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof(properties) / sizeof(properties[0]), properties);
  return exports;
}
