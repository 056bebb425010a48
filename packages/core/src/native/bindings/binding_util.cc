#include "bindings/binding_util.h"

namespace rmmjs {
namespace bind {

void ThrowSizeOutOfRange(Napi::Env env, const char* what) {
  throw Napi::Error(
      env, js::MakeError(env, RMMJS_ERR_OUT_OF_RANGE, std::string("The value of \"") + what + "\" is out of range", 0,
                         "ERR_OUT_OF_RANGE"));
}

StreamObject* DefaultStream() {
  static StreamObject* const default_stream = StreamObject::Borrow(kDefaultStream, 0);
  return default_stream;
}

StreamObject* StreamArg(Napi::Env env, napi_value value) {
  napi_valuetype type = napi_undefined;
  napi_typeof(env, value, &type);
  if (type == napi_undefined) return DefaultStream();
  void* data = nullptr;
  if (napi_get_value_external(env, value, &data) != napi_ok || data == nullptr ||
      static_cast<StreamHandle*>(data)->magic != StreamHandle::kMagic) {
    js::ThrowTypeError(env, "stream must be a Stream");
  }
  StreamObject* stream = static_cast<StreamHandle*>(data)->stream;
  if (stream == nullptr) {
    throw Napi::Error(env, js::MakeError(env, RMMJS_ERR_DISPOSED, "stream was disposed and cannot be used"));
  }
  return stream;
}

rmmjs_stream StreamHandleArg(Napi::Env env, napi_value value) { return StreamArg(env, value)->handle(); }

Napi::Value WrapStream(Napi::Env env, StreamObject* stream) {
  auto* handle = new StreamHandle{StreamHandle::kMagic, stream};
  napi_value external = nullptr;
  if (napi_create_external(
          env, handle,
          [](napi_env, void* data, void*) {
            auto* handle = static_cast<StreamHandle*>(data);
            if (handle->stream != nullptr) handle->stream->Release();
            handle->magic = 0;
            delete handle;
          },
          nullptr, &external) != napi_ok) {
    // Node-API refuses while its environment ends (a worker being terminated): the reference this
    // was to adopt goes back, or the stream would outlive everything that could release it.
    stream->Release();
    delete handle;
    throw Napi::Error::New(env, "cannot create a stream handle");
  }
  return Napi::Value(env, external);
}

BufferHandle* BufferHandleArg(Napi::Env env, napi_value value, bool in_flight) {
  BufferHandle* handle = FindBuffer(env, value);
  if (handle != nullptr &&
      (!handle->released || (in_flight && handle->buffer != nullptr && handle->buffer->pending_async() > 0))) {
    return handle;
  }
  // A freed DeviceBuffer passes null (its handle may be gone).
  napi_valuetype type = napi_undefined;
  napi_typeof(env, value, &type);
  if (type == napi_null || handle != nullptr) {
    throw Napi::Error(env, js::MakeError(env, RMMJS_ERR_DISPOSED, "DeviceBuffer was freed and cannot be used"));
  }
  js::ThrowTypeError(env, "expected a DeviceBuffer");
}

Napi::Value AttachOrThrow(Napi::Env env, napi_value js_object, DeviceBuffer* buffer) {
  napi_value external = AttachBuffer(env, js_object, buffer);
  if (external == nullptr) throw Napi::Error::New(env, "cannot attach a DeviceBuffer");
  return Napi::Value(env, external);
}

bool HostBytes(napi_env env, napi_value value, void** data, size_t* length) {
  bool is = false;
  if (napi_is_typedarray(env, value, &is) == napi_ok && is) {
    napi_typedarray_type type;
    size_t count = 0;
    size_t offset = 0;
    napi_value arraybuffer;
    if (napi_get_typedarray_info(env, value, &type, &count, data, &arraybuffer, &offset) != napi_ok) return false;
    static const size_t kElementSize[] = {1, 1, 1, 2, 2, 4, 4, 4, 8, 8, 8};
    *length = count * (static_cast<size_t>(type) < 11 ? kElementSize[type] : 1);
    return true;
  }
  if (napi_is_dataview(env, value, &is) == napi_ok && is) {
    napi_value arraybuffer;
    size_t offset = 0;
    return napi_get_dataview_info(env, value, length, data, &arraybuffer, &offset) == napi_ok;
  }
  if (napi_is_arraybuffer(env, value, &is) == napi_ok && is) {
    return napi_get_arraybuffer_info(env, value, data, length) == napi_ok;
  }
  return false;
}

}  // namespace bind
}  // namespace rmmjs
