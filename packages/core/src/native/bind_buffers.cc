// DeviceBuffer for JavaScript (see buffer_handles.h for the lifetime). The JS class passes its
// handle external to every call; after free() it passes null, which is ERR_RMM_DISPOSED.
#include <string>

#include "binding_util.h"
#include "bindings.h"
#include "driver.h"
#include "errors.h"
#include "promise_worker.h"
#include "registry.h"
#include "resource.h"

namespace rmmjs {
namespace bind {
namespace {

// Runs op on the buffer and reports how its capacity changed.
template <class Op>
void Mutate(Napi::Env env, DeviceBuffer* buffer, Op op) {
  size_t before = buffer->capacity();
  rmmjs_status status = op();
  ReportCapacity(env, before, buffer->capacity());
  js::Check(env, status);
}

Napi::Value Attach(Napi::Env env, napi_value js_object, DeviceBuffer* buffer) {
  napi_value external = AttachBuffer(env, js_object, buffer);
  if (external == nullptr) throw Napi::Error::New(env, "cannot attach a DeviceBuffer");
  return Napi::Value(env, external);
}

// bufferCreate(object, mr | undefined, size, stream | undefined, data | undefined)
Napi::Value CreateJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  size_t size = SizeArg(env, info[2], "size");
  StreamObject* stream = StreamArg(env, info[3]);
  void* data = nullptr;
  size_t length = 0;
  if (!info[4].IsUndefined()) {
    if (!HostBytes(env, info[4], &data, &length)) js::ThrowTypeError(env, "data must be an ArrayBufferView or ArrayBuffer");
    if (length < size) js::ThrowTypeError(env, "data is smaller than size");
    if (data == nullptr) data = &length;  // an empty view: copy nothing, but from somewhere
  }
  ResourceRef mr;
  if (info[1].IsUndefined()) {
    rmmjs_resource* current = nullptr;
    js::Check(env, GetCurrentDeviceResource(&current));
    mr = ResourceRef::Adopt(current);
  } else {
    mr = ResourceRef::Retain(js::ResourceArg(env, info[1], "mr", false));
  }
  DeviceBuffer* buffer = nullptr;
  js::Check(env, DeviceBuffer::Create(mr.get(), stream, size, data, &buffer));
  return Attach(env, info[0], buffer);
}

// bufferCopy(handle, object): a deep copy attached to object.
Napi::Value CopyJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  DeviceBuffer* copy = nullptr;
  js::Check(env, BufferArg(env, info[0])->Copy(&copy));
  return Attach(env, info[1], copy);
}

// bufferFree(object, handle)
Napi::Value FreeJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  js::Check(env, ReleaseBuffer(env, info[0], BufferHandleArg(env, info[1])));
  return env.Undefined();
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

Napi::Value ResizeJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  DeviceBuffer* buffer = BufferArg(env, info[0]);
  size_t size = SizeArg(env, info[1], "newSize");
  StreamObject* stream = StreamArg(env, info[2]);
  Mutate(env, buffer, [&] { return buffer->Resize(size, stream); });
  return env.Undefined();
}

Napi::Value ReserveJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  DeviceBuffer* buffer = BufferArg(env, info[0]);
  size_t capacity = SizeArg(env, info[1], "newCapacity");
  StreamObject* stream = StreamArg(env, info[2]);
  Mutate(env, buffer, [&] { return buffer->Reserve(capacity, stream); });
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
  void* data = nullptr;
  size_t length = 0;
  HostArg(env, info[1], &data, &length);
  if (length > buffer->size()) js::ThrowTypeError(env, "source larger than the buffer");
  js::Check(env, buffer->CopyFromHost(data, length, StreamArg(env, info[2])));
  return env.Undefined();
}

Napi::Value CopyToHostJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  DeviceBuffer* buffer = BufferArg(env, info[0]);
  void* data = nullptr;
  size_t length = 0;
  HostArg(env, info[1], &data, &length);
  if (length < buffer->size()) js::ThrowTypeError(env, "target smaller than the buffer");
  js::Check(env, buffer->CopyToHost(data, buffer->size(), StreamArg(env, info[2])));
  return env.Undefined();
}

Napi::Value CopyFromDeviceJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  DeviceBuffer* buffer = BufferArg(env, info[0]);
  auto* src = reinterpret_cast<const void*>(PointerArg(env, info[1], "ptr"));
  size_t bytes = SizeArg(env, info[2], "nbytes");
  if (bytes > buffer->size()) js::ThrowTypeError(env, "source larger than the buffer");
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

// The isolate's external memory total as napi_adjust_external_memory keeps it (what the
// collector weighs; V8's heap statistics do not include it).
Napi::Value ExternalMemoryJs(const Napi::CallbackInfo& info) {
  int64_t total = 0;
  napi_adjust_external_memory(info.Env(), 0, &total);
  return Napi::Number::New(info.Env(), static_cast<double>(total));
}

// An asynchronous copy between the buffer and host memory. The JS buffer, the host memory and
// the stream stay alive (and the native buffer pinned) until the promise settles.
class HostCopyWorker : public PromiseWorker {
 public:
  enum class Direction { kToHost, kFromHost };

  // (object, handle, host, stream)
  HostCopyWorker(const Napi::CallbackInfo& info, Direction direction)
      : PromiseWorker(info.Env()), direction_(direction) {
    Napi::Env env = info.Env();
    handle_ = BufferHandleArg(env, info[1]);
    DeviceBuffer* buffer = handle_->buffer;
    HostArg(env, info[2], &host_data_, &host_length_);
    stream_ = StreamArg(env, info[3]);
    if (direction == Direction::kToHost && host_length_ < buffer->size()) {
      js::ThrowTypeError(env, "target smaller than the buffer");
    }
    if (direction == Direction::kFromHost && host_length_ > buffer->size()) {
      js::ThrowTypeError(env, "source larger than the buffer");
    }
    bytes_ = direction == Direction::kToHost ? buffer->size() : host_length_;
    keep_alive_ = Napi::Persistent(Napi::Array::New(env, 3));
    keep_alive_.Value().Set(0u, info[0]);
    keep_alive_.Value().Set(1u, info[2]);
    keep_alive_.Value().Set(2u, info[3]);
    stream_->Retain();  // a Stream disposed while the copy runs stays alive for it
    buffer->BeginAsync();
  }

 protected:
  rmmjs_status Run() override {
    DeviceBuffer* buffer = handle_->buffer;
    return direction_ == Direction::kToHost ? buffer->CopyToHost(host_data_, bytes_, stream_)
                                            : buffer->CopyFromHost(host_data_, bytes_, stream_);
  }
  Napi::Value Result(Napi::Env) override { return keep_alive_.Value().Get(1u); }
  // Completes a free() that came while the copy ran.
  void Finish() override {
    stream_->Release();
    EndAsync(handle_);
  }

 private:
  Direction direction_;
  BufferHandle* handle_ = nullptr;
  StreamObject* stream_ = nullptr;
  void* host_data_ = nullptr;
  size_t host_length_ = 0;
  size_t bytes_ = 0;
  Napi::Reference<Napi::Array> keep_alive_;
};

Napi::Value CopyToHostAsyncJs(const Napi::CallbackInfo& info) {
  return (new HostCopyWorker(info, HostCopyWorker::Direction::kToHost))->Start();
}

Napi::Value CopyFromHostAsyncJs(const Napi::CallbackInfo& info) {
  return (new HostCopyWorker(info, HostCopyWorker::Direction::kFromHost))->Start();
}

}  // namespace

void RegisterBuffers(Napi::Env env, Napi::Object exports) {
  exports.Set("externalMemory", Napi::Function::New(env, ExternalMemoryJs));
  exports.Set("bufferCreate", Napi::Function::New(env, CreateJs));
  exports.Set("bufferCopy", Napi::Function::New(env, CopyJs));
  exports.Set("bufferFree", Napi::Function::New(env, FreeJs));
  exports.Set("bufferPtr", Napi::Function::New(env, PtrJs));
  exports.Set("bufferSize", Napi::Function::New(env, SizeJs));
  exports.Set("bufferCapacity", Napi::Function::New(env, CapacityJs));
  exports.Set("bufferDevice", Napi::Function::New(env, DeviceJs));
  exports.Set("bufferResize", Napi::Function::New(env, ResizeJs));
  exports.Set("bufferReserve", Napi::Function::New(env, ReserveJs));
  exports.Set("bufferCopyFromHost", Napi::Function::New(env, CopyFromHostJs));
  exports.Set("bufferCopyToHost", Napi::Function::New(env, CopyToHostJs));
  exports.Set("bufferCopyFromDevice", Napi::Function::New(env, CopyFromDeviceJs));
  exports.Set("bufferPrefetch", Napi::Function::New(env, PrefetchJs));
  exports.Set("bufferResource", Napi::Function::New(env, ResourceJs));
  exports.Set("bufferCopyToHostAsync", Napi::Function::New(env, CopyToHostAsyncJs));
  exports.Set("bufferCopyFromHostAsync", Napi::Function::New(env, CopyFromHostAsyncJs));
}

}  // namespace bind
}  // namespace rmmjs
