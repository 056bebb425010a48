/*
 * A memory resource written in plain C11 against rmmjs's C ABI, as a third party would write
 * one: an adaptor over any upstream resource that forwards every allocation to it and counts
 * allocations, deallocations and the bytes outstanding (and, given a limit, refuses to let them pass
 * it, as a LimitingResourceAdaptor does: core's tests have none). It needs nothing but rmmjs/abi.h and
 * node_api.h (no C++, no node-addon-api), and the resource it makes works everywhere rmmjs's own
 * do: as a DeviceMemoryResource in JavaScript, under DeviceBuffers, as the current device
 * resource, over or under any other resource, from any thread.
 *
 * JavaScript side (see the README's "Native addons"):
 *   import { loadAddon, resourceHandle, wrapResource } from '@rmmjs/core/addon';
 *   const addon = loadAddon(import.meta.url, './counting_adaptor.node', 'counting-adaptor');
 *   const mr = wrapResource(addon.create(resourceHandle(upstream, 'upstream')));
 *   addon.counts(resourceHandle(mr, 'mr')); // { allocations, deallocations, bytesOutstanding }
 */
#include <node_api.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "rmmjs/abi.h"

/* Core's API table, handed over by init (the same table in every thread and worker). */
static const rmmjs_core_api* core = NULL;

/* ---- the resource ---- */

typedef struct counting_adaptor {
  rmmjs_resource header;    /* first, so that a rmmjs_resource* is a counting_adaptor* */
  rmmjs_resource* upstream; /* one reference, released by destroy */
  atomic_size_t allocations;
  atomic_size_t deallocations;
  atomic_size_t bytes_outstanding;
  size_t limit; /* 0: none */
} counting_adaptor;

/* May run on any thread, at once: the counters are atomic. An upstream failure passes through
 * unchanged (its status, and its message in core's thread-local error). */
static rmmjs_status counting_allocate(rmmjs_resource* self, size_t bytes, rmmjs_stream stream, void** out) {
  counting_adaptor* mr = (counting_adaptor*)self;
  if (mr->limit > 0 && atomic_fetch_add(&mr->bytes_outstanding, bytes) + bytes > mr->limit) {
    atomic_fetch_sub(&mr->bytes_outstanding, bytes);
    return core->set_error(RMMJS_ERR_OUT_OF_MEMORY, 0, "Exceeded memory limit");
  }
  rmmjs_status status = core->allocate(mr->upstream, bytes, stream, out);
  if (status == RMMJS_OK) {
    atomic_fetch_add(&mr->allocations, 1);
    if (mr->limit == 0) atomic_fetch_add(&mr->bytes_outstanding, bytes);
  } else if (mr->limit > 0) {
    atomic_fetch_sub(&mr->bytes_outstanding, bytes);
  }
  return status;
}

static rmmjs_status counting_deallocate(rmmjs_resource* self, void* ptr, size_t bytes, rmmjs_stream stream) {
  counting_adaptor* mr = (counting_adaptor*)self;
  rmmjs_status status = core->deallocate(mr->upstream, ptr, bytes, stream);
  if (status == RMMJS_OK) {
    atomic_fetch_add(&mr->deallocations, 1);
    atomic_fetch_sub(&mr->bytes_outstanding, bytes);
  }
  return status;
}

/* Runs once, on whichever thread drops the last reference. */
static void counting_destroy(rmmjs_resource* self) {
  counting_adaptor* mr = (counting_adaptor*)self;
  core->release(mr->upstream);
  free(mr);
}

static rmmjs_resource* counting_get_upstream(const rmmjs_resource* self) {
  return ((const counting_adaptor*)self)->upstream;
}

static const rmmjs_resource_ops counting_ops = {
    .size = sizeof(rmmjs_resource_ops),
    .type_name = "CountingResourceAdaptor",
    .allocate = counting_allocate,
    .deallocate = counting_deallocate,
    .is_equal = NULL, /* only itself: another adaptor's counts would not add up */
    .destroy = counting_destroy,
    .get_upstream = counting_get_upstream,
};

/* ---- JavaScript bindings ---- */

static const napi_type_tag core_api_tag = {RMMJS_TAG_CORE_API_LOWER, RMMJS_TAG_CORE_API_UPPER};
static const napi_type_tag resource_tag = {RMMJS_TAG_RESOURCE_LOWER, RMMJS_TAG_RESOURCE_UPPER};

/* Throws makeError(status, message, cudaCode, nodeCode): an error of the class core uses for
 * status. Each environment (the main thread, every worker) keeps its own makeError. */
static napi_value throw_error(napi_env env, rmmjs_status status, const char* message, int cuda_code,
                              const char* node_code) {
  napi_ref* make_error = NULL;
  napi_value function, undefined, argv[4], error;
  napi_get_instance_data(env, (void**)&make_error);
  napi_get_reference_value(env, *make_error, &function);
  napi_get_undefined(env, &undefined);
  napi_create_int32(env, status, &argv[0]);
  napi_create_string_utf8(env, message, NAPI_AUTO_LENGTH, &argv[1]);
  napi_create_int32(env, cuda_code, &argv[2]);
  argv[3] = undefined;
  if (node_code != NULL) napi_create_string_utf8(env, node_code, NAPI_AUTO_LENGTH, &argv[3]);
  if (napi_call_function(env, undefined, function, 4, argv, &error) == napi_ok) napi_throw(env, error);
  return NULL;
}

/* Throws the error a failed core call left on this thread. */
static napi_value throw_status(napi_env env, rmmjs_status status) {
  return throw_error(env, status, core->error_message(), core->error_cuda_code(), NULL);
}

/* The resource a handle from JavaScript carries (borrowed), or NULL with an error thrown. */
static rmmjs_resource* resource_arg(napi_env env, napi_value value, const char* what) {
  bool tagged = false;
  void* data = NULL;
  char message[128];
  if (napi_check_object_type_tag(env, value, &resource_tag, &tagged) != napi_ok || !tagged ||
      napi_get_value_external(env, value, &data) != napi_ok) {
    snprintf(message, sizeof(message), "%s must be a DeviceMemoryResource's handle", what);
    throw_error(env, RMMJS_ERR_INVALID_ARGUMENT, message, 0, "ERR_INVALID_ARG_TYPE");
    return NULL;
  }
  rmmjs_resource* mr = ((rmmjs_resource_handle*)data)->resource;
  if (mr == NULL) {
    snprintf(message, sizeof(message), "%s was disposed and cannot be used", what);
    throw_error(env, RMMJS_ERR_DISPOSED, message, 0, NULL);
  }
  return mr;
}

static void release_handle(napi_env env, void* data, void* hint) {
  rmmjs_resource_handle* handle = data;
  if (handle->resource != NULL) core->release(handle->resource);
  free(handle);
}

/* A handle for JavaScript that owns the caller's reference to mr (released when it is disposed
 * or collected). */
static napi_value wrap_resource(napi_env env, rmmjs_resource* mr) {
  rmmjs_resource_handle* handle = malloc(sizeof(*handle));
  napi_value external;
  if (handle == NULL) {
    core->release(mr);
    return throw_error(env, RMMJS_ERR_OUT_OF_MEMORY, "CountingResourceAdaptor: out of host memory", 0, NULL);
  }
  handle->magic = RMMJS_RESOURCE_HANDLE_MAGIC;
  handle->resource = mr;
  if (napi_create_external(env, handle, release_handle, NULL, &external) != napi_ok) {
    release_handle(env, handle, NULL);
    return NULL;
  }
  napi_type_tag_object(env, external, &resource_tag);
  return external;
}

static void delete_make_error(napi_env env, void* data, void* hint) {
  napi_delete_reference(env, *(napi_ref*)data);
  free(data);
}

/* init(coreApi, makeError, holdJsException): what loadAddon from '@rmmjs/core/addon' calls once
 * per environment. This addon never runs JavaScript, so it has no use for holdJsException. */
static napi_value init(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  bool tagged = false;
  void* table = NULL;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 2 || napi_check_object_type_tag(env, argv[0], &core_api_tag, &tagged) != napi_ok || !tagged ||
      napi_get_value_external(env, argv[0], &table) != napi_ok) {
    napi_throw_type_error(env, NULL, "init(coreApi, makeError, holdJsException) expects @rmmjs/core's API table");
    return NULL;
  }
  if (!rmmjs_core_api_compatible(table)) {
    char message[160];
    snprintf(message, sizeof(message),
             "@rmmjs/core's C ABI %u.%u does not match this addon's (%d.%d): install matching versions",
             ((const rmmjs_core_api*)table)->abi_major, ((const rmmjs_core_api*)table)->abi_minor, RMMJS_ABI_MAJOR,
             RMMJS_ABI_MINOR);
    napi_throw_error(env, NULL, message);
    return NULL;
  }
  core = table;
  napi_ref* make_error = malloc(sizeof(*make_error));
  if (make_error == NULL || napi_create_reference(env, argv[1], 1, make_error) != napi_ok) {
    free(make_error);
    napi_throw_error(env, NULL, "counting-adaptor: cannot keep makeError");
    return NULL;
  }
  napi_set_instance_data(env, make_error, delete_make_error, NULL);
  return NULL;
}

/* create(upstream, limit?) -> the handle of a new adaptor over upstream, on its device, with its
 * flags (an adaptor passes them on: RMMJS_RESOURCE_CALLS_JS in particular); limit: the most bytes
 * outstanding (a number; 0 or undefined: no limit). */
static napi_value create(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  napi_value upstream_handle = argv[0];
  double limit = 0;
  if (argc < 2 || napi_get_value_double(env, argv[1], &limit) != napi_ok) limit = 0;
  rmmjs_resource* upstream = resource_arg(env, upstream_handle, "upstream");
  if (upstream == NULL) return NULL;
  counting_adaptor* mr = malloc(sizeof(*mr));
  if (mr == NULL)
    return throw_error(env, RMMJS_ERR_OUT_OF_MEMORY, "CountingResourceAdaptor: out of host memory", 0, NULL);
  rmmjs_status status = core->resource_init_checked(&mr->header, &counting_ops, upstream->device, upstream->flags);
  if (status != RMMJS_OK) {
    free(mr);
    return throw_status(env, status);
  }
  core->retain(upstream);
  mr->upstream = upstream;
  atomic_init(&mr->allocations, 0);
  atomic_init(&mr->deallocations, 0);
  atomic_init(&mr->bytes_outstanding, 0);
  mr->limit = limit > 0 ? (size_t)limit : 0;
  return wrap_resource(env, &mr->header);
}

/* counts(mr) -> { allocations, deallocations, bytesOutstanding } */
static napi_value counts(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value handle, result, value;
  napi_get_cb_info(env, info, &argc, &handle, NULL, NULL);
  rmmjs_resource* resource = resource_arg(env, handle, "mr");
  if (resource == NULL) return NULL;
  if (resource->ops != &counting_ops) {
    return throw_error(env, RMMJS_ERR_INVALID_ARGUMENT, "mr must be a CountingResourceAdaptor", 0,
                       "ERR_INVALID_ARG_TYPE");
  }
  counting_adaptor* mr = (counting_adaptor*)resource;
  napi_create_object(env, &result);
  napi_create_double(env, (double)atomic_load(&mr->allocations), &value);
  napi_set_named_property(env, result, "allocations", value);
  napi_create_double(env, (double)atomic_load(&mr->deallocations), &value);
  napi_set_named_property(env, result, "deallocations", value);
  napi_create_double(env, (double)atomic_load(&mr->bytes_outstanding), &value);
  napi_set_named_property(env, result, "bytesOutstanding", value);
  return result;
}

NAPI_MODULE_INIT() {
  napi_property_descriptor properties[] = {
      {"init", NULL, init, NULL, NULL, NULL, napi_default, NULL},
      {"create", NULL, create, NULL, NULL, NULL, napi_default, NULL},
      {"counts", NULL, counts, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof(properties) / sizeof(properties[0]), properties);
  return exports;
}
