// DeviceBuffer for JavaScript. free() returns the memory at once; the small native handle goes
// when the JS object is collected (see buffer_handles.h). The buffer's capacity is reported to
// V8 as external memory while it holds memory.
#include <string>

#include "binding_util.h"
#include "bindings.h"
#include "driver.h"
#include "errors.h"
#include "logger.h"
#include "promise_worker.h"
#include "registry.h"
#include "resource.h"

namespace rmmjs {
namespace bind {
namespace {

BufferHandles& Handles(const Napi::CallbackInfo& info) { return *static_cast<BufferHandles*>(info.Data()); }

// Runs op on the buffer and reports how its capacity changed.
template <class Op>
void Mutate(Napi::Env env, BufferHandle* handle, Op op) {
  DeviceBuffer* buffer = handle->buffer;
  size_t before = buffer->capacity();
  rmmjs_status status = op();
  handle->owner->ReportCapacity(before, buffer->freed() ? 0 : buffer->capacity());
  js::Check(env, status);
}

// An external without a finalizer: device-buffer.ts registers the JS object for finalization.
Napi::Value WrapBuffer(Napi::Env env, BufferHandles& handles, DeviceBuffer* buffer) {
  BufferHandle* handle = handles.Add(buffer);
  napi_value external = nullptr;
  if (napi_create_external(env, handle, nullptr, nullptr, &external) != napi_ok) {
    handles.Finalize(handle);
    throw Napi::Error::New(env, "cannot create a DeviceBuffer handle");
  }
  return Napi::Value(env, external);
}

Napi::Value CreateJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  size_t size = SizeArg(env, info[1], "size");
  StreamObject* stream = StreamArg(env, info[2]);
  void* data = nullptr;
  size_t length = 0;
  if (!info[3].IsUndefined()) {
    if (!HostBytes(env, info[3], &data, &length)) js::ThrowTypeError(env, "data must be an ArrayBufferView or ArrayBuffer");
    if (length < size) js::ThrowTypeError(env, "data is smaller than size");
    if (data == nullptr) data = &length;  // an empty view: copy nothing, but from somewhere
  }
  ResourceRef mr;
  if (info[0].IsUndefined()) {
    rmmjs_resource* current = nullptr;
    js::Check(env, GetCurrentDeviceResource(&current));
    mr = ResourceRef::Adopt(current);
  } else {
    mr = ResourceRef::Retain(js::ResourceArg(env, info[0], "mr", false));
  }
  DeviceBuffer* buffer = nullptr;
  js::Check(env, DeviceBuffer::Create(mr.get(), stream, size, data, &buffer));
  return WrapBuffer(env, Handles(info), buffer);
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

Napi::Value IsFreedJs(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), BufferArg(info.Env(), info[0], true)->freed());
}

// free(buffer, strict): a second free is ERR_RMM_DISPOSED when strict, else a no-op.
Napi::Value FreeJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  BufferHandle* handle = BufferHandleArg(env, info[0], !info[1].ToBoolean());
  if (handle->buffer->freed()) return env.Undefined();
  Mutate(env, handle, [&] { return handle->buffer->Free(); });
  return env.Undefined();
}

// bufferFinalize(external): the JS DeviceBuffer was collected.
Napi::Value FinalizeJs(const Napi::CallbackInfo& info) {
  BufferHandle* handle = BufferHandleArg(info.Env(), info[0], true);
  handle->owner->Finalize(handle);
  return info.Env().Undefined();
}

Napi::Value ResizeJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  BufferHandle* handle = BufferHandleArg(env, info[0]);
  size_t size = SizeArg(env, info[1], "newSize");
  StreamObject* stream = StreamArg(env, info[2]);
  Mutate(env, handle, [&] { return handle->buffer->Resize(size, stream); });
  return env.Undefined();
}

Napi::Value ReserveJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  BufferHandle* handle = BufferHandleArg(env, info[0]);
  size_t capacity = SizeArg(env, info[1], "newCapacity");
  StreamObject* stream = StreamArg(env, info[2]);
  Mutate(env, handle, [&] { return handle->buffer->Reserve(capacity, stream); });
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
  js::Check(env, buffer->CopyFromHost(data, length, StreamHandleArg(env, info[2])));
  return env.Undefined();
}

Napi::Value CopyToHostJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  DeviceBuffer* buffer = BufferArg(env, info[0]);
  void* data = nullptr;
  size_t length = 0;
  HostArg(env, info[1], &data, &length);
  if (length < buffer->size()) js::ThrowTypeError(env, "target smaller than the buffer");
  js::Check(env, buffer->CopyToHost(data, buffer->size(), StreamHandleArg(env, info[2])));
  return env.Undefined();
}

Napi::Value CopyFromDeviceJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  DeviceBuffer* buffer = BufferArg(env, info[0]);
  auto* src = reinterpret_cast<const void*>(PointerArg(env, info[1], "ptr"));
  size_t bytes = SizeArg(env, info[2], "nbytes");
  if (bytes > buffer->size()) js::ThrowTypeError(env, "source larger than the buffer");
  js::Check(env, buffer->CopyFromDevice(src, bytes, StreamHandleArg(env, info[3])));
  return env.Undefined();
}

Napi::Value CopyJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  DeviceBuffer* copy = nullptr;
  js::Check(env, BufferArg(env, info[0])->Copy(&copy));
  return WrapBuffer(env, Handles(info), copy);
}

Napi::Value PrefetchJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  DeviceBuffer* buffer = BufferArg(env, info[0]);
  int device = IntArg(env, info[1], "device");
  js::Check(env, buffer->Prefetch(device, StreamHandleArg(env, info[2])));
  return env.Undefined();
}

Napi::Value ResourceJs(const Napi::CallbackInfo& info) {
  rmmjs_resource* mr = BufferArg(info.Env(), info[0])->resource();
  Retain(mr);
  return js::WrapResource(info.Env(), mr);
}

// An asynchronous copy between the buffer and host memory. The buffer, the host memory and
// the stream stay alive (and the buffer pinned) until the promise settles.
class HostCopyWorker : public PromiseWorker {
 public:
  enum class Direction { kToHost, kFromHost };

  HostCopyWorker(Napi::Env env, Direction direction, Napi::Value buffer_value, Napi::Value host,
                 Napi::Value stream_value)
      : PromiseWorker(env), direction_(direction) {
    handle_ = BufferHandleArg(env, buffer_value);
    buffer_ = handle_->buffer;
    HostArg(env, host, &host_data_, &host_length_);
    stream_ = StreamArg(env, stream_value);
    if (direction == Direction::kToHost && host_length_ < buffer_->size()) {
      js::ThrowTypeError(env, "target smaller than the buffer");
    }
    if (direction == Direction::kFromHost && host_length_ > buffer_->size()) {
      js::ThrowTypeError(env, "source larger than the buffer");
    }
    bytes_ = direction == Direction::kToHost ? buffer_->size() : host_length_;
    keep_alive_ = Napi::Persistent(Napi::Array::New(env, 3));
    keep_alive_.Value().Set(0u, buffer_value);
    keep_alive_.Value().Set(1u, host);
    keep_alive_.Value().Set(2u, stream_value);
    buffer_->BeginAsync();
  }

 protected:
  rmmjs_status Run() override {
    return direction_ == Direction::kToHost
               ? buffer_->CopyToHost(host_data_, bytes_, stream_->handle())
               : buffer_->CopyFromHost(host_data_, bytes_, stream_->handle());
  }
  Napi::Value Result(Napi::Env) override { return keep_alive_.Value().Get(1u); }
  // Completes a free() or a collection that came while the copy ran.
  void Finish() override { handle_->owner->EndAsync(handle_); }

 private:
  Direction direction_;
  BufferHandle* handle_ = nullptr;
  DeviceBuffer* buffer_ = nullptr;
  StreamObject* stream_ = nullptr;
  void* host_data_ = nullptr;
  size_t host_length_ = 0;
  size_t bytes_ = 0;
  Napi::Reference<Napi::Array> keep_alive_;
};

Napi::Value CopyToHostAsyncJs(const Napi::CallbackInfo& info) {
  return (new HostCopyWorker(info.Env(), HostCopyWorker::Direction::kToHost, info[0], info[1], info[2]))->Start();
}

Napi::Value CopyFromHostAsyncJs(const Napi::CallbackInfo& info) {
  return (new HostCopyWorker(info.Env(), HostCopyWorker::Direction::kFromHost, info[0], info[1], info[2]))->Start();
}

// The isolate's external memory total as napi_adjust_external_memory keeps it (what the
// collector weighs; V8's heap statistics do not include it).
Napi::Value ExternalMemoryJs(const Napi::CallbackInfo& info) {
  int64_t total = 0;
  napi_adjust_external_memory(info.Env(), 0, &total);
  return Napi::Number::New(info.Env(), static_cast<double>(total));
}

}  // namespace

void RegisterBuffers(Napi::Env env, Napi::Object exports) {
  auto* handles = new BufferHandles(env);  // deleted by its environment cleanup hook
  exports.Set("externalMemory", Napi::Function::New(env, ExternalMemoryJs));
  exports.Set("bufferCreate", Napi::Function::New(env, CreateJs, "bufferCreate", handles));
  exports.Set("bufferFinalize", Napi::Function::New(env, FinalizeJs));
  exports.Set("bufferPtr", Napi::Function::New(env, PtrJs));
  exports.Set("bufferSize", Napi::Function::New(env, SizeJs));
  exports.Set("bufferCapacity", Napi::Function::New(env, CapacityJs));
  exports.Set("bufferDevice", Napi::Function::New(env, DeviceJs));
  exports.Set("bufferIsFreed", Napi::Function::New(env, IsFreedJs));
  exports.Set("bufferFree", Napi::Function::New(env, FreeJs));
  exports.Set("bufferResize", Napi::Function::New(env, ResizeJs));
  exports.Set("bufferReserve", Napi::Function::New(env, ReserveJs));
  exports.Set("bufferCopyFromHost", Napi::Function::New(env, CopyFromHostJs));
  exports.Set("bufferCopyToHost", Napi::Function::New(env, CopyToHostJs));
  exports.Set("bufferCopyFromDevice", Napi::Function::New(env, CopyFromDeviceJs));
  exports.Set("bufferCopy", Napi::Function::New(env, CopyJs, "bufferCopy", handles));
  exports.Set("bufferPrefetch", Napi::Function::New(env, PrefetchJs));
  exports.Set("bufferResource", Napi::Function::New(env, ResourceJs));
  exports.Set("bufferCopyToHostAsync", Napi::Function::New(env, CopyToHostAsyncJs));
  exports.Set("bufferCopyFromHostAsync", Napi::Function::New(env, CopyFromHostAsyncJs));
}

}  // namespace bind
}  // namespace rmmjs
