// Argument conversion shared by core's bindings. JavaScript validates arguments first (with
// Node's error codes); these checks only keep bad calls from crashing the process.
#pragma once

#include <napi.h>

#include <cstdint>
#include <string>

#include "bindings/buffer_handles.h"
#include "buffers/device_buffer.h"
#include "rmmjs/napi.hpp"
#include "runtime/stream.h"

namespace rmmjs {
namespace bind {

// What a Stream's external points to; disposing sets stream to null. Stream externals live only
// in private fields of core's classes, so a magic number (not a type tag, which costs a property
// lookup per call) is enough to refuse a foreign external.
struct StreamHandle {
  static constexpr uint32_t kMagic = 0x52535431;  // "RST1"
  uint32_t magic = kMagic;
  StreamObject* stream;
};

// The error of a size that is not a safe non-negative integer; out of line so that SizeArg's
// happy path is a few instructions, inlined into the hot bindings.
[[noreturn]] RMMJS_COLD void ThrowSizeOutOfRange(Napi::Env env, const char* what);

inline size_t SizeArg(Napi::Env env, napi_value value, const char* what) {
  double number = 0;
  if (napi_get_value_double(env, value, &number) == napi_ok && number >= 0 && number <= 9007199254740991.0) {
    auto whole = static_cast<uint64_t>(number);
    if (static_cast<double>(whole) == number) return static_cast<size_t>(whole);
  }
  ThrowSizeOutOfRange(env, what);
}

inline int IntArg(Napi::Env env, napi_value value, const char* what) {
  int32_t number = 0;
  if (napi_get_value_int32(env, value, &number) != napi_ok) {
    js::ThrowTypeError(env, std::string(what) + " must be an integer");
  }
  return number;
}

inline uintptr_t PointerArg(Napi::Env env, napi_value value, const char* what) {
  uint64_t pointer = 0;
  bool lossless = false;
  if (napi_get_value_bigint_uint64(env, value, &pointer, &lossless) != napi_ok || !lossless) {
    js::ThrowTypeError(env, std::string(what) + " must be a bigint pointer");
  }
  return static_cast<uintptr_t>(pointer);
}

inline Napi::Value PointerValue(Napi::Env env, const void* pointer) {
  return Napi::BigInt::New(env, static_cast<uint64_t>(reinterpret_cast<uintptr_t>(pointer)));
}

// The stream a stream argument that is not given (undefined) stands for: the legacy default stream
// (handle 0). Decided here only: JavaScript asks for it (streamDefault) rather than naming one.
StreamObject* DefaultStream();
// The stream a JS Stream's external carries; undefined is DefaultStream().
StreamObject* StreamArg(Napi::Env env, napi_value value);
rmmjs_stream StreamHandleArg(Napi::Env env, napi_value value);
Napi::Value WrapStream(Napi::Env env, StreamObject* stream);  // adopts one reference

// The handle a DeviceBuffer's slot number names; null (a freed buffer) is ERR_RMM_DISPOSED. With
// in_flight, also a buffer freed while an asynchronous copy (which pins it) runs: the copy goes on.
BufferHandle* BufferHandleArg(Napi::Env env, napi_value value, bool in_flight = false);
inline DeviceBuffer* BufferArg(Napi::Env env, napi_value value) { return BufferHandleArg(env, value)->buffer; }

// AttachBuffer's slot number for the JavaScript DeviceBuffer js_object; throws when Node-API failed
// (the buffer is freed then).
Napi::Value AttachOrThrow(Napi::Env env, napi_value js_object, DeviceBuffer* buffer);

// Bytes of a TypedArray, DataView or ArrayBuffer.
bool HostBytes(napi_env env, napi_value value, void** data, size_t* length);

}  // namespace bind
}  // namespace rmmjs
