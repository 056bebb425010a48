/*
 * A third party that exchanges DLPack capsules with @rmmjs/interop: plain C, DLPack's own dlpack.h
 * (v1.1), node_api.h and the capsule contract (rmmjs/dlpack_capsule.h), nothing else of rmmjs.
 *
 * As a producer:
 *   produce(spec) -> capsule  a tensor over memory of its own (malloc'ed, byte i = (i * 7 + 3) & 255),
 *        spec: { bytes, major?, minor?, deviceType?, deviceId?, shape?, strides?, code?, bits?, lanes?,
 *                byteOffset?, nullData?, noDeleter? } (what it does not give: a 1-D uint8 tensor over
 *                all the bytes, on kDLCPU, of DLPack 1.1)
 *   deleted() -> how many of its tensors had their deleter called; deleterThreads() -> on how many
 *        threads other than the JavaScript thread
 * As a consumer:
 *   consume(capsule) -> { id, major, minor, deviceType, deviceId, shape, strides, code, bits, lanes,
 *        byteOffset, flags, data }   (takes the tensor: the capsule is consumed)
 *   readByte(id, offset) -> the byte at data + byte_offset + offset, read with the CPU
 *   release(id) / releaseOnThread(id): calls the tensor's deleter on this thread / on a new one
 */
#include <dlpack/dlpack.h>
#include <node_api.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "rmmjs/dlpack_capsule.h"

/* dlpack.h declares it as a struct tag only. */
typedef struct DLManagedTensorVersioned DLManagedTensorVersioned;

static const napi_type_tag capsule_tag = {RMMJS_TAG_DLPACK_LOWER, RMMJS_TAG_DLPACK_UPPER};
static atomic_int deleted_count;
static atomic_int foreign_thread_deletes;
static pthread_t js_thread;

enum { kMaxConsumed = 64 };
static DLManagedTensorVersioned* consumed[kMaxConsumed];

/* --- producer --- */

typedef struct produced {
  DLManagedTensorVersioned tensor; /* first */
  int64_t shape[8];
  int64_t strides[8];
  void* memory;
} produced;

static void delete_produced(DLManagedTensorVersioned* self) {
  produced* p = (produced*)self->manager_ctx;
  if (!pthread_equal(pthread_self(), js_thread)) atomic_fetch_add(&foreign_thread_deletes, 1);
  free(p->memory);
  free(p);
  atomic_fetch_add(&deleted_count, 1);
}

static void finalize_capsule(napi_env env, void* data, void* hint) {
  rmmjs_dlpack_capsule* capsule = data;
  if (capsule->tensor != NULL && capsule->tensor->deleter != NULL) capsule->tensor->deleter(capsule->tensor);
  free(capsule);
}

static int get_int(napi_env env, napi_value object, const char* name, int64_t fallback, int64_t* out) {
  bool has = false;
  napi_value value;
  *out = fallback;
  if (napi_has_named_property(env, object, name, &has) != napi_ok || !has) return 1;
  napi_get_named_property(env, object, name, &value);
  napi_valuetype type;
  napi_typeof(env, value, &type);
  if (type == napi_undefined) return 1;
  return napi_get_value_int64(env, value, out) == napi_ok;
}

/* An array property into out (at most 8); -1 when absent. */
static int get_array(napi_env env, napi_value object, const char* name, int64_t* out) {
  bool has = false, is_array = false;
  napi_value value;
  if (napi_has_named_property(env, object, name, &has) != napi_ok || !has) return -1;
  napi_get_named_property(env, object, name, &value);
  if (napi_is_array(env, value, &is_array) != napi_ok || !is_array) return -1;
  uint32_t length = 0;
  napi_get_array_length(env, value, &length);
  if (length > 8) length = 8;
  for (uint32_t i = 0; i < length; i++) {
    napi_value element;
    napi_get_element(env, value, i, &element);
    napi_get_value_int64(env, element, &out[i]);
  }
  return (int)length;
}

static napi_value produce(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value spec;
  if (napi_get_cb_info(env, info, &argc, &spec, NULL, NULL) != napi_ok || argc != 1) return NULL;
  int64_t bytes, major, minor, device_type, device_id, code, bits, lanes, byte_offset, null_data, no_deleter;
  get_int(env, spec, "bytes", 0, &bytes);
  get_int(env, spec, "major", DLPACK_MAJOR_VERSION, &major);
  get_int(env, spec, "minor", DLPACK_MINOR_VERSION, &minor);
  get_int(env, spec, "deviceType", kDLCPU, &device_type);
  get_int(env, spec, "deviceId", 0, &device_id);
  get_int(env, spec, "code", kDLUInt, &code);
  get_int(env, spec, "bits", 8, &bits);
  get_int(env, spec, "lanes", 1, &lanes);
  get_int(env, spec, "byteOffset", 0, &byte_offset);
  get_int(env, spec, "nullData", 0, &null_data);
  get_int(env, spec, "noDeleter", 0, &no_deleter);
  produced* p = calloc(1, sizeof(*p));
  p->memory = bytes > 0 ? malloc((size_t)bytes) : NULL;
  for (int64_t i = 0; i < bytes; i++) ((unsigned char*)p->memory)[i] = (unsigned char)((i * 7 + 3) & 255);
  int ndim = get_array(env, spec, "shape", p->shape);
  if (ndim < 0) {
    ndim = 1;
    p->shape[0] = bytes;
  }
  int nstrides = get_array(env, spec, "strides", p->strides);
  DLManagedTensorVersioned* t = &p->tensor;
  t->version.major = (uint32_t)major;
  t->version.minor = (uint32_t)minor;
  t->manager_ctx = p;
  t->deleter = no_deleter ? NULL : delete_produced;
  t->dl_tensor.data = null_data ? NULL : p->memory;
  t->dl_tensor.device.device_type = (DLDeviceType)device_type;
  t->dl_tensor.device.device_id = (int32_t)device_id;
  t->dl_tensor.ndim = ndim;
  t->dl_tensor.dtype.code = (uint8_t)code;
  t->dl_tensor.dtype.bits = (uint8_t)bits;
  t->dl_tensor.dtype.lanes = (uint16_t)lanes;
  t->dl_tensor.shape = p->shape;
  t->dl_tensor.strides = nstrides >= 0 ? p->strides : NULL;
  t->dl_tensor.byte_offset = (uint64_t)byte_offset;
  rmmjs_dlpack_capsule* capsule = malloc(sizeof(*capsule));
  capsule->magic = RMMJS_DLPACK_CAPSULE_MAGIC;
  capsule->tensor = t;
  napi_value external;
  napi_create_external(env, capsule, finalize_capsule, NULL, &external);
  napi_type_tag_object(env, external, &capsule_tag);
  return external;
}

static napi_value number(napi_env env, double value) {
  napi_value result;
  napi_create_double(env, value, &result);
  return result;
}

static napi_value deleted(napi_env env, napi_callback_info info) { return number(env, atomic_load(&deleted_count)); }

static napi_value deleter_threads(napi_env env, napi_callback_info info) {
  return number(env, atomic_load(&foreign_thread_deletes));
}

/* --- consumer --- */

static napi_value int64_array(napi_env env, const int64_t* values, int32_t count) {
  napi_value array;
  napi_create_array_with_length(env, (size_t)count, &array);
  for (int32_t i = 0; i < count; i++) napi_set_element(env, array, (uint32_t)i, number(env, (double)values[i]));
  return array;
}

static void set(napi_env env, napi_value object, const char* name, napi_value value) {
  napi_set_named_property(env, object, name, value);
}

static napi_value consume(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  bool tagged = false;
  void* data = NULL;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 1 ||
      napi_check_object_type_tag(env, argv[0], &capsule_tag, &tagged) != napi_ok || !tagged ||
      napi_get_value_external(env, argv[0], &data) != napi_ok ||
      ((rmmjs_dlpack_capsule*)data)->magic != RMMJS_DLPACK_CAPSULE_MAGIC) {
    napi_throw_type_error(env, NULL, "consume expects a DLPack capsule");
    return NULL;
  }
  rmmjs_dlpack_capsule* capsule = data;
  DLManagedTensorVersioned* t = capsule->tensor;
  if (t == NULL) {
    napi_throw_error(env, NULL, "the capsule was consumed already");
    return NULL;
  }
  capsule->tensor = NULL; /* taken: ours now */
  if (t->version.major != DLPACK_MAJOR_VERSION) {
    if (t->deleter != NULL) t->deleter(t);
    napi_throw_error(env, NULL, "unknown DLPack major version");
    return NULL;
  }
  int id = 0;
  while (id < kMaxConsumed && consumed[id] != NULL) id++;
  if (id == kMaxConsumed) {
    if (t->deleter != NULL) t->deleter(t);
    napi_throw_error(env, NULL, "too many");
    return NULL;
  }
  consumed[id] = t;
  napi_value out, value;
  napi_create_object(env, &out);
  set(env, out, "id", number(env, id));
  set(env, out, "major", number(env, t->version.major));
  set(env, out, "minor", number(env, t->version.minor));
  set(env, out, "flags", number(env, (double)t->flags));
  set(env, out, "deviceType", number(env, t->dl_tensor.device.device_type));
  set(env, out, "deviceId", number(env, t->dl_tensor.device.device_id));
  set(env, out, "shape", int64_array(env, t->dl_tensor.shape, t->dl_tensor.ndim));
  if (t->dl_tensor.strides != NULL) {
    set(env, out, "strides", int64_array(env, t->dl_tensor.strides, t->dl_tensor.ndim));
  } else {
    napi_get_null(env, &value);
    set(env, out, "strides", value);
  }
  set(env, out, "code", number(env, t->dl_tensor.dtype.code));
  set(env, out, "bits", number(env, t->dl_tensor.dtype.bits));
  set(env, out, "lanes", number(env, t->dl_tensor.dtype.lanes));
  set(env, out, "byteOffset", number(env, (double)t->dl_tensor.byte_offset));
  napi_create_bigint_uint64(env, (uint64_t)(uintptr_t)t->dl_tensor.data, &value);
  set(env, out, "data", value);
  return out;
}

static int consumed_arg(napi_env env, napi_value value) {
  int32_t id = -1;
  if (napi_get_value_int32(env, value, &id) != napi_ok || id < 0 || id >= kMaxConsumed || consumed[id] == NULL) {
    napi_throw_range_error(env, NULL, "no such tensor");
    return -1;
  }
  return id;
}

static napi_value read_byte(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  int id = consumed_arg(env, argv[0]);
  int64_t offset = 0;
  if (id < 0 || napi_get_value_int64(env, argv[1], &offset) != napi_ok) return NULL;
  const DLTensor* t = &consumed[id]->dl_tensor;
  return number(env, ((const unsigned char*)t->data)[t->byte_offset + (uint64_t)offset]);
}

static DLManagedTensorVersioned* untake(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  int id = consumed_arg(env, argv[0]);
  if (id < 0) return NULL;
  DLManagedTensorVersioned* t = consumed[id];
  consumed[id] = NULL;
  return t;
}

static napi_value release(napi_env env, napi_callback_info info) {
  DLManagedTensorVersioned* t = untake(env, info);
  if (t != NULL && t->deleter != NULL) t->deleter(t);
  return NULL;
}

static void* delete_on_thread(void* tensor) {
  DLManagedTensorVersioned* t = tensor;
  if (t->deleter != NULL) t->deleter(t);
  return NULL;
}

static napi_value release_on_thread(napi_env env, napi_callback_info info) {
  DLManagedTensorVersioned* t = untake(env, info);
  if (t == NULL) return NULL;
  pthread_t thread;
  pthread_create(&thread, NULL, delete_on_thread, t);
  pthread_join(thread, NULL);
  return NULL;
}

NAPI_MODULE_INIT() {
  js_thread = pthread_self();
  napi_property_descriptor properties[] = {
      {"produce", NULL, produce, NULL, NULL, NULL, napi_default, NULL},
      {"deleted", NULL, deleted, NULL, NULL, NULL, napi_default, NULL},
      {"deleterThreads", NULL, deleter_threads, NULL, NULL, NULL, napi_default, NULL},
      {"consume", NULL, consume, NULL, NULL, NULL, napi_default, NULL},
      {"readByte", NULL, read_byte, NULL, NULL, NULL, napi_default, NULL},
      {"release", NULL, release, NULL, NULL, NULL, napi_default, NULL},
      {"releaseOnThread", NULL, release_on_thread, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof(properties) / sizeof(properties[0]), properties);
  return exports;
}
