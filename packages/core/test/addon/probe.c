/*
 * Views into core's state for core's own tests, in plain C over the C ABI and Node-API, so that
 * core's addon exports nothing for tests:
 *   refcount(resourceHandle): the references the resource has now (its rmmjs_resource header's)
 *   externalMemory(): the bytes this JavaScript thread's isolate counts as external memory; core
 *     reports a DeviceBuffer's capacity there in batches (up to 256 KiB stay unreported)
 */
#include <node_api.h>
#include <stdint.h>

#include "rmmjs/abi.h"

static const napi_type_tag resource_tag = {RMMJS_TAG_RESOURCE_LOWER, RMMJS_TAG_RESOURCE_UPPER};

static napi_value number(napi_env env, double value) {
  napi_value result;
  napi_create_double(env, value, &result);
  return result;
}

static napi_value refcount(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  bool tagged = false;
  void* data = NULL;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 1 ||
      napi_check_object_type_tag(env, argv[0], &resource_tag, &tagged) != napi_ok || !tagged ||
      napi_get_value_external(env, argv[0], &data) != napi_ok) {
    napi_throw_type_error(env, NULL, "refcount expects a resource handle");
    return NULL;
  }
  const rmmjs_resource_handle* handle = (const rmmjs_resource_handle*)data;
  if (handle->magic != RMMJS_RESOURCE_HANDLE_MAGIC || handle->resource == NULL) {
    napi_throw_type_error(env, NULL, "refcount expects a live resource handle");
    return NULL;
  }
  return number(env, (double)__atomic_load_n(&handle->resource->refcount, __ATOMIC_RELAXED));
}

static napi_value external_memory(napi_env env, napi_callback_info info) {
  int64_t total = 0;
  napi_adjust_external_memory(env, 0, &total);
  return number(env, (double)total);
}

NAPI_MODULE_INIT() {
  napi_property_descriptor properties[] = {
      {"refcount", NULL, refcount, NULL, NULL, NULL, napi_default, NULL},
      {"externalMemory", NULL, external_memory, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof(properties) / sizeof(properties[0]), properties);
  return exports;
}
