// Memory that someone other than a resource owns, as JavaScript sees it (rmmjs/abi.h: rmmjs_memory,
// rmmjs_buffer_guard): a DeviceBuffer over lent memory, a hold on a buffer's memory for native
// code, and guards that may refuse a buffer's free().
#include <string>

#include "bindings/binding_util.h"
#include "bindings/bindings.h"
#include "resources/resource.h"
#include "runtime/driver.h"
#include "runtime/errors.h"
#include "runtime/registry.h"

namespace rmmjs {
namespace bind {
namespace {

// bufferAdopt(object, memoryHandle, stream | undefined): a buffer over the handle's memory (taken
// from it), allocating copies and growth from the current resource of the memory's device.
Napi::Value AdoptJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  StreamObject* stream = StreamArg(env, info[2]);
  rmmjs_memory* memory = js::TakeMemory(env, info[1], "memory");
  rmmjs_status status = ValidateDevice(memory->device);
  if (status == RMMJS_OK && memory->ptr == nullptr && memory->bytes > 0) {
    status = SetError(RMMJS_ERR_INVALID_ARGUMENT,
                      "memory: a null pointer cannot lend " + std::to_string(memory->bytes) + " bytes");
  }
  rmmjs_resource* mr = nullptr;
  if (status == RMMJS_OK) status = GetPerDeviceResource(memory->device, &mr);
  if (status != RMMJS_OK) {
    memory->release(memory);
    js::ThrowStatus(env, status);
  }
  DeviceBuffer* buffer = DeviceBuffer::Adopt(mr, stream, memory);
  Release(mr);  // the buffer holds its own reference
  napi_value external = AttachBuffer(env, info[0], buffer);
  if (external == nullptr) throw Napi::Error::New(env, "cannot attach a DeviceBuffer");
  return Napi::Value(env, external);
}

// bufferHold(handle): a memory handle holding the buffer's memory.
Napi::Value HoldJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  rmmjs_memory* memory = nullptr;
  js::Check(env, BufferArg(env, info[0])->Hold(&memory));
  return js::WrapMemory(env, memory);
}

// bufferGuard(handle, guardHandle): the buffer takes the guard.
Napi::Value GuardJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  DeviceBuffer* buffer = BufferArg(env, info[0]);
  buffer->AddGuard(js::TakeBufferGuard(env, info[1], "guard"));
  return env.Undefined();
}

const js::Method kMethods[] = {
    {"bufferAdopt", AdoptJs},
    {"bufferHold", HoldJs},
    {"bufferGuard", GuardJs},
};

}  // namespace

const MethodTable kLentMemoryMethods = TableOf(kMethods);

}  // namespace bind
}  // namespace rmmjs
