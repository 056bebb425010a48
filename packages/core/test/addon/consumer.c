/*
 * A test-only consumer of rmmjs's C ABI, as a third-party library would be: plain C, only
 * rmmjs/abi.h and node_api.h, allocating through the current device resource and through a
 * resource handle from JavaScript without calling back into JavaScript.
 *
 * It is built twice: as an addon of this ABI, and as an addon built against ABI 1.1 would be
 * (CONSUMER_ABI_MINOR=1: it demands only 1.1's table and uses only 1.1's members; core keeps
 * those members where 1.1 had them, so that is what an addon compiled with 1.1's header does).
 */
#include <node_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rmmjs/abi.h"
#include "rmmjs/cuda_driver.h"

#ifndef CONSUMER_ABI_MINOR
#define CONSUMER_ABI_MINOR RMMJS_ABI_MINOR
#endif
#if CONSUMER_ABI_MINOR == 1
#define CONSUMER_TABLE_SIZE RMMJS_CORE_API_SIZE_1_1
#else
#define CONSUMER_TABLE_SIZE sizeof(rmmjs_core_api)
#endif

static const rmmjs_core_api* api = NULL;
static const napi_type_tag resource_tag = {RMMJS_TAG_RESOURCE_LOWER, RMMJS_TAG_RESOURCE_UPPER};
static const napi_type_tag api_tag = {RMMJS_TAG_CORE_API_LOWER, RMMJS_TAG_CORE_API_UPPER};

static napi_value fail(napi_env env, const char* what) {
  char message[512];
  snprintf(message, sizeof(message), "%s: %s", what, api ? api->error_message() : "no API table");
  napi_throw_error(env, NULL, message);
  return NULL;
}

static int args(napi_env env, napi_callback_info info, size_t count, napi_value* argv) {
  size_t argc = count;
  return napi_get_cb_info(env, info, &argc, argv, NULL, NULL) == napi_ok && argc == count;
}

/* init(coreApi) -> "major.minor" of core's table */
static napi_value init(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  bool tagged = false;
  void* data = NULL;
  if (!args(env, info, 1, argv) || napi_check_object_type_tag(env, argv[0], &api_tag, &tagged) != napi_ok || !tagged ||
      napi_get_value_external(env, argv[0], &data) != napi_ok) {
    napi_throw_type_error(env, NULL, "init expects core's API table");
    return NULL;
  }
  const rmmjs_core_api* table = (const rmmjs_core_api*)data;
  if (table->abi_major != RMMJS_ABI_MAJOR || table->size < CONSUMER_TABLE_SIZE) {
    napi_throw_error(env, NULL, "ABI mismatch");
    return NULL;
  }
  api = table;
  char version[32];
  snprintf(version, sizeof(version), "%u.%u", table->abi_major, table->abi_minor);
  napi_value result;
  napi_create_string_utf8(env, version, NAPI_AUTO_LENGTH, &result);
  return result;
}

/* Fills the allocation with value, reads it back, checks it. */
static int check_memory(void* ptr, size_t bytes, int value) {
  unsigned char host[4096];
  size_t n = bytes < sizeof(host) ? bytes : sizeof(host);
  if (api->memset_async(ptr, value, bytes, 0) != RMMJS_OK) return 0;
  memset(host, ~value, n);
  if (api->memcpy_async(host, ptr, n, 0) != RMMJS_OK || api->stream_synchronize(0) != RMMJS_OK) return 0;
  for (size_t i = 0; i < n; i++)
    if (host[i] != (unsigned char)value) return 0;
  return 1;
}

static napi_value round_trip(napi_env env, rmmjs_resource* mr, size_t bytes) {
  void* ptr = NULL;
  if (api->allocate(mr, bytes, 0, &ptr) != RMMJS_OK) return fail(env, "allocate");
  int ok = ((uintptr_t)ptr % RMMJS_ALLOCATION_ALIGNMENT) == 0 && check_memory(ptr, bytes, 0xAB);
  if (api->deallocate(mr, ptr, bytes, 0) != RMMJS_OK) return fail(env, "deallocate");
  napi_value result;
  napi_get_boolean(env, ok, &result);
  return result;
}

/* roundTripCurrent(nbytes) -> true when memory from the current device resource holds a pattern */
static napi_value round_trip_current(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  int64_t bytes = 0;
  if (!args(env, info, 1, argv) || napi_get_value_int64(env, argv[0], &bytes) != napi_ok) return NULL;
  rmmjs_resource* mr = NULL;
  if (api->get_current_device_resource(&mr) != RMMJS_OK) return fail(env, "get_current_device_resource");
  napi_value result = round_trip(env, mr, (size_t)bytes);
  api->release(mr);
  return result;
}

/* roundTripWith(resourceHandle, nbytes) */
static napi_value round_trip_with(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  bool tagged = false;
  void* data = NULL;
  int64_t bytes = 0;
  if (!args(env, info, 2, argv) || napi_check_object_type_tag(env, argv[0], &resource_tag, &tagged) != napi_ok ||
      !tagged || napi_get_value_external(env, argv[0], &data) != napi_ok ||
      napi_get_value_int64(env, argv[1], &bytes) != napi_ok) {
    napi_throw_type_error(env, NULL, "roundTripWith(resourceHandle, nbytes)");
    return NULL;
  }
  rmmjs_resource* mr = ((rmmjs_resource_handle*)data)->resource;
  if (mr == NULL) {
    napi_throw_error(env, NULL, "resource was disposed");
    return NULL;
  }
  return round_trip(env, mr, (size_t)bytes);
}

/* typeNameOfCurrent() -> the current device resource's ops->type_name */
static napi_value type_name_of_current(napi_env env, napi_callback_info info) {
  rmmjs_resource* mr = NULL;
  if (api->get_current_device_resource(&mr) != RMMJS_OK) return fail(env, "get_current_device_resource");
  napi_value result;
  napi_create_string_utf8(env, mr->ops->type_name, NAPI_AUTO_LENGTH, &result);
  api->release(mr);
  return result;
}

/* [status, message]: a call's status and, when it failed, core's message for it */
static napi_value status_and_message(napi_env env, rmmjs_status status) {
  napi_value result, status_value, message;
  napi_create_array_with_length(env, 2, &result);
  napi_create_int32(env, status, &status_value);
  napi_create_string_utf8(env, status == RMMJS_OK ? "" : api->error_message(), NAPI_AUTO_LENGTH, &message);
  napi_set_element(env, result, 0, status_value);
  napi_set_element(env, result, 1, message);
  return result;
}

/* failingAllocation(nbytes) -> [status, message] of an allocation expected to fail */
static napi_value failing_allocation(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  double bytes = 0;
  if (!args(env, info, 1, argv) || napi_get_value_double(env, argv[0], &bytes) != napi_ok) return NULL;
  rmmjs_resource* mr = NULL;
  if (api->get_current_device_resource(&mr) != RMMJS_OK) return fail(env, "get_current_device_resource");
  void* ptr = NULL;
  rmmjs_status status = api->allocate(mr, (size_t)bytes, 0, &ptr);
  if (status == RMMJS_OK) api->deallocate(mr, ptr, (size_t)bytes, 0);
  api->release(mr);
  return status_and_message(env, status);
}

/* streamId(handle: bigint) -> bigint: api->stream_id */
static napi_value stream_id(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  uint64_t handle = 0;
  bool lossless = false;
  if (!args(env, info, 1, argv) || napi_get_value_bigint_uint64(env, argv[0], &handle, &lossless) != napi_ok) {
    napi_throw_type_error(env, NULL, "streamId(handle: bigint)");
    return NULL;
  }
  uint64_t id = 0;
  if (api->stream_id((rmmjs_stream)handle, &id) != RMMJS_OK) return fail(env, "stream_id");
  napi_value result;
  napi_create_bigint_uint64(env, id, &result);
  return result;
}

#if CONSUMER_ABI_MINOR >= 2
/* A resource that hands out nothing: what core makes of an ops table of a given size. */
static int probe_destroyed = 0;
static rmmjs_status probe_allocate(rmmjs_resource* self, size_t bytes, rmmjs_stream stream, void** out) {
  return api->set_error(RMMJS_ERR_OUT_OF_MEMORY, 0, "probe: no memory here");
}
static rmmjs_status probe_deallocate(rmmjs_resource* self, void* ptr, size_t bytes, rmmjs_stream stream) {
  return RMMJS_OK;
}
static void probe_destroy(rmmjs_resource* self) { probe_destroyed++; }

/* initWithOps(size | null, checked, withAllocate) -> [initStatus, initMessage, allocateStatus,
 * allocateMessage, destroyed, headerUntouched]: initialises a resource with resource_init_checked
 * (or 1.0's resource_init) and an ops table of `size` bytes (null: no table), tries an allocation
 * and releases it. */
static napi_value init_with_ops(napi_env env, napi_callback_info info) {
  static struct {
    rmmjs_resource_ops ops;
    char newer_members[64]; /* room for a table from a newer minor */
  } table;
  napi_value argv[3];
  napi_valuetype size_type;
  double size = 0;
  bool checked = false, with_allocate = false;
  if (!args(env, info, 3, argv) || napi_typeof(env, argv[0], &size_type) != napi_ok ||
      (size_type != napi_null && napi_get_value_double(env, argv[0], &size) != napi_ok) ||
      napi_get_value_bool(env, argv[1], &checked) != napi_ok ||
      napi_get_value_bool(env, argv[2], &with_allocate) != napi_ok) {
    napi_throw_type_error(env, NULL, "initWithOps(size | null, checked, withAllocate)");
    return NULL;
  }
  const rmmjs_resource_ops template_ops = {
      sizeof(rmmjs_resource_ops), "ProbeResource", probe_allocate, probe_deallocate, NULL, probe_destroy, NULL};
  table.ops = template_ops;
  table.ops.size = (size_t)size;
  if (!with_allocate) table.ops.allocate = NULL;
  const rmmjs_resource_ops* ops = size_type == napi_null ? NULL : &table.ops;

  rmmjs_resource header;
  memset(&header, 0, sizeof(header));
  header.refcount = -7; /* a checked init that refuses must leave the header alone */
  probe_destroyed = 0;
  rmmjs_status init_status = RMMJS_OK;
  char init_message[256] = "";
  if (checked) {
    init_status = api->resource_init_checked(&header, ops, 0, 0);
    if (init_status != RMMJS_OK) snprintf(init_message, sizeof(init_message), "%s", api->error_message());
  } else {
    api->resource_init(&header, ops, 0, 0);
  }
  int untouched = header.refcount == -7;
  rmmjs_status allocate_status = RMMJS_OK;
  char allocate_message[256] = "";
  if (init_status == RMMJS_OK) {
    void* ptr = NULL;
    allocate_status = api->allocate(&header, 4096, 0, &ptr);
    snprintf(allocate_message, sizeof(allocate_message), "%s", allocate_status == RMMJS_OK ? "" : api->error_message());
    api->release(&header);
  }

  napi_value result, value;
  napi_create_array_with_length(env, 6, &result);
  napi_create_int32(env, init_status, &value);
  napi_set_element(env, result, 0, value);
  napi_create_string_utf8(env, init_message, NAPI_AUTO_LENGTH, &value);
  napi_set_element(env, result, 1, value);
  napi_create_int32(env, allocate_status, &value);
  napi_set_element(env, result, 2, value);
  napi_create_string_utf8(env, allocate_message, NAPI_AUTO_LENGTH, &value);
  napi_set_element(env, result, 3, value);
  napi_create_int32(env, probe_destroyed, &value);
  napi_set_element(env, result, 4, value);
  napi_get_boolean(env, untouched, &value);
  napi_set_element(env, result, 5, value);
  return result;
}

/* driverLayout() -> [driver_version, driver_size, has the IPC entry points (version 2)]: what
 * core's table says about its driver table, which exists in host mode too (driver() is NULL). */
static napi_value driver_layout(napi_env env, napi_callback_info info) {
  napi_value result, value;
  napi_create_array_with_length(env, 3, &result);
  napi_create_uint32(env, api->driver_version, &value);
  napi_set_element(env, result, 0, value);
  napi_create_double(env, (double)api->driver_size, &value);
  napi_set_element(env, result, 1, value);
  napi_get_boolean(env, RMMJS_DRIVER_HAS(api, cuMemPoolImportPointer), &value);
  napi_set_element(env, result, 2, value);
  return result;
}
#endif

#if CONSUMER_ABI_MINOR >= 3
/* streamCheckDevice(handle: bigint, device) -> [status, message]: api->stream_check_device */
static napi_value stream_check_device(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  uint64_t handle = 0;
  bool lossless = false;
  int32_t device = 0;
  if (!args(env, info, 2, argv) || napi_get_value_bigint_uint64(env, argv[0], &handle, &lossless) != napi_ok ||
      napi_get_value_int32(env, argv[1], &device) != napi_ok) {
    napi_throw_type_error(env, NULL, "streamCheckDevice(handle: bigint, device: number)");
    return NULL;
  }
  rmmjs_status status = api->stream_check_device((rmmjs_stream)handle, device);
  return status_and_message(env, status);
}
#endif

#if CONSUMER_ABI_MINOR >= 4
/* Owners tracked as a producer of DLPack capsules tracks them (api->track_owner): each "holds"
 * its bytes, and its reclaim adds them to reclaimed_bytes. */
typedef struct probe_owner {
  size_t bytes;
  rmmjs_tracked_owner* owner; /* NULL once reclaimed or untracked */
} probe_owner;

static size_t reclaimed_bytes = 0;

static size_t probe_reclaim(void* data) {
  probe_owner* probe = data;
  probe->owner = NULL; /* core untracks it */
  reclaimed_bytes += probe->bytes;
  return probe->bytes;
}

static void probe_finalize(napi_env env, void* data, void* hint) {
  probe_owner* probe = data;
  if (probe->owner != NULL) api->untrack_owner(probe->owner);
  free(probe);
}

/* trackOwner(bytes) -> [status, message, external]: an external owning `bytes`, tracked */
static napi_value track_owner(napi_env env, napi_callback_info info) {
  napi_value argv[1], result, external = NULL;
  double bytes = 0;
  if (!args(env, info, 1, argv) || napi_get_value_double(env, argv[0], &bytes) != napi_ok) {
    napi_throw_type_error(env, NULL, "trackOwner(bytes)");
    return NULL;
  }
  probe_owner* probe = calloc(1, sizeof(*probe));
  probe->bytes = (size_t)bytes;
  napi_create_external(env, probe, probe_finalize, NULL, &external);
  rmmjs_status status = api->track_owner(env, external, probe->bytes, probe_reclaim, probe, &probe->owner);
  result = status_and_message(env, status);
  napi_set_element(env, result, 2, external);
  return result;
}

/* untrackOwner(external): what a consumed or disposed owner does */
static napi_value untrack_owner(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  void* data = NULL;
  if (!args(env, info, 1, argv) || napi_get_value_external(env, argv[0], &data) != napi_ok) {
    napi_throw_type_error(env, NULL, "untrackOwner(external)");
    return NULL;
  }
  probe_owner* probe = data;
  if (probe->owner != NULL) api->untrack_owner(probe->owner);
  probe->owner = NULL;
  return NULL;
}

/* trackNull() -> [status, message] of track_owner with no object */
static napi_value track_null(napi_env env, napi_callback_info info) {
  rmmjs_tracked_owner* owner = NULL;
  return status_and_message(env, api->track_owner(env, NULL, 1, probe_reclaim, NULL, &owner));
}

/* reclaimedBytes() -> what the probes' reclaim gave back so far */
static napi_value reclaimed(napi_env env, napi_callback_info info) {
  napi_value value;
  napi_create_double(env, (double)reclaimed_bytes, &value);
  return value;
}
#endif

NAPI_MODULE_INIT() {
  char version[32];
  napi_value built_against;
  snprintf(version, sizeof(version), "%d.%d", RMMJS_ABI_MAJOR, CONSUMER_ABI_MINOR);
  napi_create_string_utf8(env, version, NAPI_AUTO_LENGTH, &built_against);
  napi_set_named_property(env, exports, "builtAgainst", built_against);
#if CONSUMER_ABI_MINOR >= 2
  napi_property_descriptor probes[] = {
      {"initWithOps", NULL, init_with_ops, NULL, NULL, NULL, napi_default, NULL},
      {"driverLayout", NULL, driver_layout, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof(probes) / sizeof(probes[0]), probes);
#endif
#if CONSUMER_ABI_MINOR >= 3
  napi_property_descriptor checks[] = {
      {"streamCheckDevice", NULL, stream_check_device, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof(checks) / sizeof(checks[0]), checks);
#endif
#if CONSUMER_ABI_MINOR >= 4
  napi_property_descriptor owners[] = {
      {"trackOwner", NULL, track_owner, NULL, NULL, NULL, napi_default, NULL},
      {"untrackOwner", NULL, untrack_owner, NULL, NULL, NULL, napi_default, NULL},
      {"trackNull", NULL, track_null, NULL, NULL, NULL, napi_default, NULL},
      {"reclaimedBytes", NULL, reclaimed, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof(owners) / sizeof(owners[0]), owners);
#endif
  napi_property_descriptor properties[] = {
      {"init", NULL, init, NULL, NULL, NULL, napi_default, NULL},
      {"roundTripCurrent", NULL, round_trip_current, NULL, NULL, NULL, napi_default, NULL},
      {"roundTripWith", NULL, round_trip_with, NULL, NULL, NULL, napi_default, NULL},
      {"typeNameOfCurrent", NULL, type_name_of_current, NULL, NULL, NULL, napi_default, NULL},
      {"failingAllocation", NULL, failing_allocation, NULL, NULL, NULL, napi_default, NULL},
      {"streamId", NULL, stream_id, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof(properties) / sizeof(properties[0]), properties);
  return exports;
}
