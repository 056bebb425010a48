// DeviceBuffer for JavaScript (see buffer_handles.h for the lifetime). The JS class passes its
// handle's slot number to every call; after free() it passes null, which is ERR_RMM_DISPOSED.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "bindings/binding_util.h"
#include "bindings/bindings.h"
#include "bindings/promise_worker.h"
#include "copies/staged_copy.h"
#include "resources/resource.h"
#include "runtime/driver.h"
#include "runtime/errors.h"
#include "runtime/registry.h"

namespace rmmjs {
namespace bind {
namespace {

// Bytes one call of an asynchronous copy moves (see CopySliceJs): through the pinned staging on a
// GPU, a memcpy in host mode; each takes a few milliseconds.
size_t SliceBytes() { return CudaAvailable() ? size_t{64} << 20 : size_t{16} << 20; }

[[noreturn]] void ThrowInvalidValue(Napi::Env env, const std::string& message) {
  throw Napi::Error(env, js::MakeError(env, RMMJS_ERR_INVALID_ARGUMENT, message, 0, "ERR_INVALID_ARG_VALUE"));
}

// Deletes a buffer that failed to become a JavaScript DeviceBuffer and throws status (the
// deletion's own errors are logged, not reported).
[[noreturn]] void DiscardAndThrow(Napi::Env env, DeviceBuffer* buffer, rmmjs_status status) {
  Napi::Value error = js::StatusError(env, status);
  delete buffer;
  throw Napi::Error(env, error);
}

// bufferCreate(object, mr | undefined, size, stream | undefined, data | undefined): the hot path,
// in plain Node-API (no node-addon-api wrapper).
napi_value CreateJs(napi_env raw_env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  napi_get_cb_info(raw_env, info, &argc, argv, nullptr, nullptr);
  Napi::Env env(raw_env);
  try {
    size_t size = SizeArg(env, argv[2], "size");
    StreamObject* stream = StreamArg(env, argv[3]);
    ResourceRef mr;
    if (Napi::Value(env, argv[1]).IsUndefined()) {
      rmmjs_resource* current = nullptr;
      js::Check(env, GetCurrentDeviceResource(&current));
      mr = ResourceRef::Adopt(current);
    } else {
      mr = ResourceRef::Retain(js::ResourceArg(env, argv[1], "mr", false));
    }
    DeviceBuffer* buffer = nullptr;
    js::Check(env, DeviceBuffer::Create(std::move(mr), stream, size, &buffer));
    if (!Napi::Value(env, argv[4]).IsUndefined()) {
      // Read only now: the allocation may have run JavaScript that detached or shrank the data.
      void* data = nullptr;
      size_t length = 0;
      if (!HostBytes(env, argv[4], &data, &length) || length < size) {
        delete buffer;
        ThrowInvalidValue(env,
                          "The property \"options.data\" was detached or shrunk while the memory was allocated: it "
                          "has " +
                              std::to_string(length) + " bytes, " + std::to_string(size) + " are needed");
      }
      rmmjs_status status = buffer->CopyFromHost(data, size, buffer->stream());
      if (status != RMMJS_OK) DiscardAndThrow(env, buffer, status);
    }
    return AttachOrThrow(env, argv[0], buffer);
  } catch (const Napi::Error& error) {
    error.ThrowAsJavaScriptException();
    return nullptr;
  }
}

// bufferCopy(handle, object): a deep copy attached to object.
Napi::Value CopyJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  DeviceBuffer* copy = nullptr;
  js::Check(env, BufferArg(env, info[0])->Copy(&copy));
  return AttachOrThrow(env, info[1], copy);
}

// bufferFree(handle): undefined, or the error to throw for a buffer that is freed all the same
// (its memory was not the resource's). Throws when the buffer keeps its memory.
napi_value FreeJs(napi_env raw_env, napi_callback_info info) {
  size_t argc = 1;
  napi_value handle;
  napi_get_cb_info(raw_env, info, &argc, &handle, nullptr, nullptr);
  Napi::Env env(raw_env);
  try {
    bool released = false;
    rmmjs_status status = ReleaseBuffer(BufferHandleArg(env, handle), &released);
    if (status == RMMJS_OK) return nullptr;
    if (!released) js::ThrowStatus(env, status);
    return js::StatusError(env, status);
  } catch (const Napi::Error& error) {
    error.ThrowAsJavaScriptException();
    return nullptr;
  }
}

Napi::Value PtrJs(const Napi::CallbackInfo& info) {
  return PointerValue(info.Env(), BufferArg(info.Env(), info[0])->data());
}

Napi::Value SizeJs(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(BufferArg(info.Env(), info[0])->size()));
}

Napi::Value CapacityJs(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(BufferArg(info.Env(), info[0])->capacity()));
}

Napi::Value DeviceJs(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), BufferArg(info.Env(), info[0])->device());
}

// Resize and Reserve may run JavaScript that frees the buffer: the handle stays (a pinned buffer's
// handle is not deleted) and reports the capacity the buffer has afterwards.
Napi::Value ResizeJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  BufferHandle* handle = BufferHandleArg(env, info[0]);
  size_t size = SizeArg(env, info[1], "newSize");
  rmmjs_status status = handle->buffer->Resize(size, StreamArg(env, info[2]));
  ReportCapacity(handle);
  js::Check(env, status);
  return env.Undefined();
}

Napi::Value ReserveJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  BufferHandle* handle = BufferHandleArg(env, info[0]);
  size_t capacity = SizeArg(env, info[1], "newCapacity");
  rmmjs_status status = handle->buffer->Reserve(capacity, StreamArg(env, info[2]));
  ReportCapacity(handle);
  js::Check(env, status);
  return env.Undefined();
}

void HostArg(Napi::Env env, napi_value value, void** data, size_t* length) {
  if (!HostBytes(env, value, data, length)) {
    js::ThrowTypeError(env, "expected an ArrayBufferView or ArrayBuffer");
  }
}

Napi::Value CopyFromHostJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  DeviceBuffer* buffer = BufferArg(env, info[0]);
  StreamObject* stream = StreamArg(env, info[2]);
  void* data = nullptr;
  size_t length = 0;
  HostArg(env, info[1], &data, &length);
  if (length > buffer->size()) ThrowInvalidValue(env, "source larger than the buffer");
  js::Check(env, buffer->CopyFromHost(data, length, stream));
  return env.Undefined();
}

Napi::Value CopyToHostJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  DeviceBuffer* buffer = BufferArg(env, info[0]);
  StreamObject* stream = StreamArg(env, info[2]);
  void* data = nullptr;
  size_t length = 0;
  HostArg(env, info[1], &data, &length);
  if (length < buffer->size()) ThrowInvalidValue(env, "target smaller than the buffer");
  js::Check(env, buffer->CopyToHost(data, buffer->size(), stream));
  return env.Undefined();
}

Napi::Value CopyFromDeviceJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  DeviceBuffer* buffer = BufferArg(env, info[0]);
  auto* src = reinterpret_cast<const void*>(PointerArg(env, info[1], "ptr"));
  size_t bytes = SizeArg(env, info[2], "nbytes");
  if (bytes > buffer->size()) ThrowInvalidValue(env, "source larger than the buffer");
  if (src == nullptr && bytes > 0) ThrowInvalidValue(env, "source is a null pointer");
  js::Check(env, buffer->CopyFromDevice(src, bytes, StreamArg(env, info[3])));
  return env.Undefined();
}

Napi::Value PrefetchJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  DeviceBuffer* buffer = BufferArg(env, info[0]);
  int device = IntArg(env, info[1], "device");
  js::Check(env, buffer->Prefetch(device, StreamArg(env, info[2])));
  return env.Undefined();
}

Napi::Value ResourceJs(const Napi::CallbackInfo& info) {
  rmmjs_resource* mr = BufferArg(info.Env(), info[0])->resource();
  Retain(mr);
  return js::WrapResource(info.Env(), mr);
}

// An asynchronous copy is a sequence of calls from JavaScript (DeviceBuffer#copyInSlices in
// device-buffer.ts): bufferBeginAsync pins the buffer and the stream; bufferSynchronizeAsync waits
// for the stream's earlier work on a thread of the pool; then each bufferCopySlice copies the next
// slice synchronously, on the JavaScript thread, with the event loop turning in between;
// bufferEndAsync unpins (and completes a free() that came meanwhile). Host memory is touched only
// inside those synchronous calls, so JavaScript can never detach or shrink it under a copy: the
// next slice finds it gone and fails.

// bufferBeginAsync(handle, stream): a Stream handle of its own for the copy (a Stream disposed
// meanwhile stays alive for it; streamDispose it at the end).
Napi::Value BeginAsyncJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  DeviceBuffer* buffer = BufferArg(env, info[0]);
  StreamObject* stream = StreamArg(env, info[1]);
  stream->Retain();
  Napi::Value copy_stream = WrapStream(env, stream);
  buffer->BeginAsync();
  return copy_stream;
}

// bufferEndAsync(handle)
Napi::Value EndAsyncJs(const Napi::CallbackInfo& info) {
  BufferHandleArg(info.Env(), info[0], true)->buffer->EndAsync();  // a failed deferred free is logged
  return info.Env().Undefined();
}

// bufferSynchronizeAsync(handle, stream): resolves once the work queued on stream has finished.
Napi::Value SynchronizeAsyncJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  DeviceBuffer* buffer = BufferHandleArg(env, info[0], true)->buffer;
  StreamObject* stream = StreamArg(env, info[1]);
  return SynchronizeAsync(env, stream, stream->ContextDevice(buffer->device()));
}

// bufferCopySlice(handle, host, offset, nbytes, toHost, stream, name): copies the slice of
// [0, nbytes) that starts at offset; returns its length.
Napi::Value CopySliceJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  DeviceBuffer* buffer = BufferHandleArg(env, info[0], true)->buffer;
  size_t offset = SizeArg(env, info[2], "offset");
  size_t nbytes = SizeArg(env, info[3], "nbytes");
  bool to_host = info[4].ToBoolean();
  StreamObject* stream = StreamArg(env, info[5]);
  void* data = nullptr;
  size_t length = 0;
  if (!HostBytes(env, info[1], &data, &length) || length < nbytes) {
    ThrowInvalidValue(env, "The argument \"" + info[6].ToString().Utf8Value() +
                               "\" was detached or shrunk during the copy: it has " + std::to_string(length) +
                               " bytes, the copy needs " + std::to_string(nbytes));
  }
  if (offset >= nbytes) return Napi::Number::New(env, 0);
  size_t bytes = std::min(SliceBytes(), nbytes - offset);
  char* host = static_cast<char*>(data) + offset;
  js::Check(env, to_host ? buffer->CopyToHost(host, bytes, stream, offset)
                         : buffer->CopyFromHost(host, bytes, stream, offset));
  return Napi::Number::New(env, static_cast<double>(bytes));
}

// setStagingShape({ chunkBytes, depth, pieceBytes, lanes, stores, smallestSpan }): the shape the
// first staged copy of the process makes the staging with (staged_copy.h); a member not given keeps
// its default.
Napi::Value SetStagingShapeJs(const Napi::CallbackInfo& info) {
  static const char* const kMembers[] = {"chunkBytes", "depth", "pieceBytes", "lanes", "stores", "smallestSpan"};
  Napi::Env env = info.Env();
  if (!info[0].IsObject()) js::ThrowTypeError(env, "shape must be an object");
  Napi::Object shape = info[0].As<Napi::Object>();
  Napi::Array names = shape.GetPropertyNames();
  for (uint32_t i = 0; i < names.Length(); i++) {
    std::string name = names.Get(i).ToString().Utf8Value();
    if (std::none_of(std::begin(kMembers), std::end(kMembers), [&](const char* member) { return name == member; })) {
      js::ThrowTypeError(env, "shape has no member " + name);
    }
  }
  auto member = [&](const char* name) -> std::optional<int64_t> {
    Napi::Value value = shape.Get(name);
    if (value.IsUndefined()) return std::nullopt;
    double number = value.IsNumber() ? value.As<Napi::Number>().DoubleValue() : NAN;
    if (!(std::trunc(number) == number && std::abs(number) <= 9007199254740991.0)) {
      js::ThrowTypeError(env, std::string("shape.") + name + " must be an integer");
    }
    return static_cast<int64_t>(number);
  };
  js::Check(env, SetStagingShape({member("chunkBytes"), member("depth"), member("pieceBytes"), member("lanes"),
                                  member("stores"), member("smallestSpan")}));
  return env.Undefined();
}

const js::Method kMethods[] = {
    {"bufferCreate", CreateJs},
    {"bufferCopy", CopyJs},
    {"bufferFree", FreeJs},
    {"bufferPtr", PtrJs},
    {"bufferSize", SizeJs},
    {"bufferCapacity", CapacityJs},
    {"bufferDevice", DeviceJs},
    {"bufferResize", ResizeJs},
    {"bufferReserve", ReserveJs},
    {"bufferCopyFromHost", CopyFromHostJs},
    {"bufferCopyToHost", CopyToHostJs},
    {"bufferCopyFromDevice", CopyFromDeviceJs},
    {"bufferPrefetch", PrefetchJs},
    {"bufferResource", ResourceJs},
    {"bufferBeginAsync", BeginAsyncJs},
    {"bufferEndAsync", EndAsyncJs},
    {"bufferSynchronizeAsync", SynchronizeAsyncJs},
    {"bufferCopySlice", CopySliceJs},
    {"setStagingShape", SetStagingShapeJs},
};

}  // namespace

const MethodTable kBufferMethods = TableOf(kMethods);

}  // namespace bind
}  // namespace rmmjs
