// Stream objects for JavaScript.
#include "bindings/binding_util.h"
#include "bindings/bindings.h"
#include "bindings/promise_worker.h"
#include "runtime/driver.h"

namespace rmmjs {
namespace bind {
namespace {

Napi::Value StreamCreateJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  StreamObject* stream = nullptr;
  js::Check(env, StreamObject::Create(info[0].ToBoolean(), IntArg(env, info[1], "priority"), &stream));
  return WrapStream(env, stream);
}

Napi::Value StreamBorrowJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto handle = static_cast<rmmjs_stream>(PointerArg(env, info[0], "handle"));
  // The default streams follow the current device (see SyncDevice) and must not load the
  // driver: they are created at import. Another stream's device is its context's, asked of the
  // driver when first needed (StreamObject::device); the current device stands in until then.
  int device = 0;
  if (handle > kPerThreadStream) js::Check(env, GetCurrentDevice(&device));
  return WrapStream(env, StreamObject::Borrow(handle, device));
}

// streamDefault(): the stream that a stream argument left undefined stands for.
Napi::Value StreamDefaultJs(const Napi::CallbackInfo& info) {
  StreamObject* stream = DefaultStream();
  stream->Retain();
  return WrapStream(info.Env(), stream);
}

Napi::Value StreamHandleJs(const Napi::CallbackInfo& info) {
  return Napi::BigInt::New(info.Env(), static_cast<uint64_t>(StreamHandleArg(info.Env(), info[0])));
}

// The default streams belong to whichever device is current; other streams to their own.
int SyncDevice(Napi::Env env, StreamObject* stream) {
  if (stream->handle() > kPerThreadStream) return stream->device();
  int device = 0;
  js::Check(env, GetCurrentDevice(&device));
  return device;
}

Napi::Value StreamInfoJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  StreamObject* stream = StreamArg(env, info[0]);
  Napi::Object out = Napi::Object::New(env);
  out.Set("device", SyncDevice(env, stream));
  out.Set("owned", stream->owned());
  out.Set("priority", stream->priority());
  return out;
}

Napi::Value StreamSynchronizeJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  StreamObject* stream = StreamArg(env, info[0]);
  js::Check(env, StreamSynchronizeOnDevice(stream->handle(), SyncDevice(env, stream)));
  return env.Undefined();
}

Napi::Value StreamSynchronizeAsyncJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  StreamObject* stream = StreamArg(env, info[0]);
  return SynchronizeAsync(env, stream, SyncDevice(env, stream));
}

Napi::Value StreamDisposeJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  void* data = nullptr;
  if (napi_get_value_external(env, info[0], &data) != napi_ok || data == nullptr ||
      static_cast<StreamHandle*>(data)->magic != StreamHandle::kMagic) {
    js::ThrowTypeError(env, "stream must be a Stream");
  }
  auto* handle = static_cast<StreamHandle*>(data);
  if (handle->stream != nullptr) std::exchange(handle->stream, nullptr)->Release();
  return env.Undefined();
}

const js::Method kMethods[] = {
    {"streamCreate", StreamCreateJs},
    {"streamBorrow", StreamBorrowJs},
    {"streamDefault", StreamDefaultJs},
    {"streamHandle", StreamHandleJs},
    {"streamInfo", StreamInfoJs},
    {"streamSynchronize", StreamSynchronizeJs},
    {"streamSynchronizeAsync", StreamSynchronizeAsyncJs},
    {"streamDispose", StreamDisposeJs},
};

}  // namespace

const MethodTable kStreamMethods = TableOf(kMethods);

}  // namespace bind
}  // namespace rmmjs
