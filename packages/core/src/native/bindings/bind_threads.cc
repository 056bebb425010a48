// Sharing resources and transferring DeviceBuffers between JavaScript threads (worker_threads).
// The tables behind them are process-wide (shared_resources.h, transfers.h); the tokens that name
// their entries are made and checked in JavaScript (src/tokens.ts), which passes only the ids of
// tokens it verified. An id that is not in a table (gone, claimed) gives null or false.
#include <cstdlib>
#include <new>
#include <string>

#include "bindings/binding_util.h"
#include "bindings/bindings.h"
#include "buffers/token_signature.h"
#include "buffers/transfers.h"
#include "resources/resource.h"
#include "resources/shared_resources.h"
#include "runtime/errors.h"

namespace rmmjs {
namespace bind {
namespace {

// A decimal id as tokens carry it; 0 (never an id) for anything else.
uint64_t IdArg(const Napi::Value& value) {
  if (!value.IsString()) return 0;
  std::string text = value.As<Napi::String>().Utf8Value();
  if (text.empty() || text.size() > 20 || text.find_first_not_of("0123456789") != std::string::npos) return 0;
  return std::strtoull(text.c_str(), nullptr, 10);
}

Napi::Value IdValue(Napi::Env env, uint64_t id) { return Napi::String::New(env, std::to_string(id)); }

// Runs body; a std::bad_alloc (host memory for a table entry) is OutOfMemoryError naming `who`.
template <class Body>
auto GuardHost(Napi::Env env, const char* who, Body&& body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    js::ThrowStatus(env, FailOutOfHostMemory(who));
  }
}

// tokenInstance() -> this process's random name; tokenSign(text) -> its signature;
// tokenVerify(text, signature) -> whether it is text's (see token_signature.h).
Napi::Value TokenInstanceJs(const Napi::CallbackInfo& info) { return Napi::String::New(info.Env(), ProcessInstance()); }

Napi::Value TokenSignJs(const Napi::CallbackInfo& info) {
  return Napi::String::New(info.Env(), TokenSignature(info[0].As<Napi::String>().Utf8Value()));
}

Napi::Value TokenVerifyJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsString() || !info[1].IsString()) return Napi::Boolean::New(env, false);
  return Napi::Boolean::New(
      env, SignatureMatches(info[0].As<Napi::String>().Utf8Value(), info[1].As<Napi::String>().Utf8Value()));
}

// resourceShare(mr) -> id
Napi::Value ShareJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  rmmjs_resource* mr = js::ResourceArg(env, info[0], "mr");
  return IdValue(env, GuardHost(env, "DeviceMemoryResource.share", [&] { return ShareResource(mr); }));
}

// resourceFromShared(id) -> a handle with a new reference, or null when the resource is gone.
Napi::Value FromSharedJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  rmmjs_resource* mr = RetainShared(IdArg(info[0]));
  if (mr == nullptr) return env.Null();
  return js::WrapResource(env, mr);
}

// Why buffer cannot leave its thread now, or RMMJS_OK.
rmmjs_status CheckTransferable(const DeviceBuffer* buffer) {
  if (buffer->pending_async() > 0) {
    return SetError(RMMJS_ERR_LOGIC, "DeviceBuffer has " + std::to_string(buffer->pending_async()) +
                                         " asynchronous copies in flight: await them before transfer()");
  }
  if (buffer->pinned()) {
    return SetError(RMMJS_ERR_LOGIC,
                    "DeviceBuffer cannot be transferred now: an operation whose resource runs JavaScript is using it");
  }
  const rmmjs_resource* mr = buffer->resource();
  if (mr->flags & RMMJS_RESOURCE_THREAD_BOUND) {
    return SetError(RMMJS_ERR_WRONG_THREAD, std::string("DeviceBuffer cannot be transferred: its resource (") +
                                                (mr->ops->type_name ? mr->ops->type_name : "a resource") +
                                                ") frees memory through JavaScript, which runs only on the thread "
                                                "that created it; copy the bytes into a buffer of another resource");
  }
  if (buffer->thread_bound()) {  // a view of such memory (fromDLPack of a toDLPack, at any depth)
    return SetError(
        RMMJS_ERR_WRONG_THREAD,
        "DeviceBuffer cannot be transferred: its memory belongs to a resource that frees memory through "
        "JavaScript, which runs only on the thread that created it; copy the bytes into a buffer of another "
        "resource");
  }
  return RMMJS_OK;
}

// bufferTransfer(handle) -> id: the buffer leaves its object (which reads as freed) for the
// table. Each thread has its own per-thread default stream, so work queued on it is waited for.
Napi::Value TransferJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  BufferHandle* handle = BufferHandleArg(env, info[0]);
  DeviceBuffer* buffer = handle->buffer;
  js::Check(env, CheckTransferable(buffer));
  if (buffer->stream()->handle() == kPerThreadStream) {
    js::Check(env, StreamSynchronizeOnDevice(kPerThreadStream, buffer->device()));
  }
  uint64_t id = GuardHost(env, "DeviceBuffer.transfer", [&] { return AddTransfer(buffer); });
  DetachBuffer(handle);
  return IdValue(env, id);
}

// bufferClaim(id, object) -> the handle of object, which now owns the buffer; null when the
// buffer was claimed or reclaimed already.
Napi::Value ClaimJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  DeviceBuffer* buffer = TakeTransfer(IdArg(info[0]));
  if (buffer == nullptr) return env.Null();
  return AttachOrThrow(env, info[1], buffer);
}

// bufferStream(handle) -> a handle of the buffer's stream (its own reference).
Napi::Value StreamJs(const Napi::CallbackInfo& info) {
  StreamObject* stream = BufferArg(info.Env(), info[0])->stream();
  stream->Retain();
  return WrapStream(info.Env(), stream);
}

// bufferReclaimTransfer(id) -> true when it freed a buffer nobody claimed, false when there was
// none. A buffer whose resource fails to take the memory back stays claimable, and the call throws.
Napi::Value ReclaimTransferJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  uint64_t id = IdArg(info[0]);
  DeviceBuffer* buffer = TakeTransfer(id);
  if (buffer == nullptr) return Napi::Boolean::New(env, false);
  rmmjs_status status = buffer->Free();
  if (!buffer->freed()) {
    Napi::Value error = js::StatusError(env, status);
    RestoreTransfer(id, buffer);
    throw Napi::Error(env, error);
  }
  delete buffer;
  js::Check(env, status);  // freed all the same: the resource said the memory was not its own
  return Napi::Boolean::New(env, true);
}

// freeUnclaimedTransfers(): the main thread's exit.
Napi::Value FreeUnclaimedJs(const Napi::CallbackInfo& info) {
  FreeUnclaimedTransfers();
  return info.Env().Undefined();
}

const js::Method kMethods[] = {
    {"tokenInstance", TokenInstanceJs},
    {"tokenSign", TokenSignJs},
    {"tokenVerify", TokenVerifyJs},
    {"resourceShare", ShareJs},
    {"resourceFromShared", FromSharedJs},
    {"bufferTransfer", TransferJs},
    {"bufferClaim", ClaimJs},
    {"bufferStream", StreamJs},
    {"bufferReclaimTransfer", ReclaimTransferJs},
    {"freeUnclaimedTransfers", FreeUnclaimedJs},
};

}  // namespace

const MethodTable kThreadMethods = TableOf(kMethods);

}  // namespace bind
}  // namespace rmmjs
