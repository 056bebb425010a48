// @rmmjs/emm-plugin's addon: the host and managed memory of RMMExternalMemoryManager
// (host_memory.h), as handles that JavaScript releases, and that the collector releases as a
// fallback.
//
// A handle is a type-tagged napi_external holding a Block. Page-locked memory from hostAlloc is
// also the backing store of an ArrayBuffer; until detach(), that ArrayBuffer owns the memory (its
// finalizer frees it, so JavaScript can never reach freed memory through it). After detach(), or
// for the other kinds, release() frees it, or else the handle's finalizer does. JavaScript may have
// detached the ArrayBuffer itself first: transfer() moves the backing store, memory and finalizer,
// into a new ArrayBuffer, which this addon cannot detach. The memory then stays that one's: its
// finalizer frees it when the last ArrayBuffer over it goes, and release() leaves it alone.
#include <cstdint>
#include <memory>
#include <string>

#include "host_memory.h"
#include "rmmjs/addon.hpp"
#include "rmmjs/cuda_driver.h"
#include "rmmjs/status.hpp"

namespace {

using rmmjs::HostMemory;
namespace js = rmmjs::js;

constexpr napi_type_tag kHandleTag{0x726d6d6a73456d6dULL, 0x486f73744d656d31ULL};  // "rmmjsEmm" "HostMem1"

struct Block {
  HostMemory memory;
  bool detached = false;  // pinned: its ArrayBuffer gave the memory up (detach() detached it)
  // Whether an ArrayBuffer still owns the memory: pinned memory until detach() took it from it.
  bool OwnedByArrayBuffer() const { return memory.kind() == HostMemory::Kind::kPinned && !detached; }
};
using BlockRef = std::shared_ptr<Block>;

// Releases what nobody will release any more (a finalizer: errors go to the debug log).
void ReleaseUnowned(Block& block, const char* why) {
  rmmjs_status status = block.memory.Release();
  if (status != RMMJS_OK) {
    rmmjs::LogAt(RMMJS_LOG_ERROR, std::string("RMMExternalMemoryManager: ") + why + ": " + rmmjs::LastErrorMessage());
  }
}

Napi::Value WrapBlock(Napi::Env env, const BlockRef& block) {
  auto* ref = new BlockRef(block);
  Napi::External<BlockRef> handle;
  try {
    handle = Napi::External<BlockRef>::New(env, ref, [](Napi::Env, BlockRef* ref) {
      Block& block = **ref;
      if (!block.OwnedByArrayBuffer()) ReleaseUnowned(block, "releasing memory that was collected");
      delete ref;
    });
  } catch (...) {
    // Node-API refuses while its environment ends (a worker being terminated): nothing else would
    // ever release the memory.
    ReleaseUnowned(*block, "releasing memory whose handle could not be made");
    delete ref;
    throw;
  }
  napi_type_tag_object(env, handle, &kHandleTag);
  return handle;
}

Block& BlockArg(const Napi::CallbackInfo& info, size_t index) {
  Napi::Value value = info[index];
  if (!js::HasTag(info.Env(), value, kHandleTag)) js::ThrowTypeError(info.Env(), "not a host memory handle");
  return **value.As<Napi::External<BlockRef>>().Data();
}

Napi::Value Pointer(Napi::Env env, uint64_t value) { return Napi::BigInt::New(env, value); }

Napi::Value HostPointer(Napi::Env env, const HostMemory& memory) {
  return Pointer(env, reinterpret_cast<uintptr_t>(memory.host_ptr()));
}

int32_t DeviceArg(const Napi::CallbackInfo& info, size_t index) { return info[index].As<Napi::Number>().Int32Value(); }

// hostAlloc(device, size, flags) -> [handle, arrayBuffer, hostPtr, devicePtr]
Napi::Value HostAlloc(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto block = std::make_shared<Block>();
  size_t bytes = js::SizeArg(info[1]);
  unsigned flags = info[2].As<Napi::Number>().Uint32Value();
  js::Check(env, HostMemory::AllocatePinned(DeviceArg(info, 0), bytes, flags, &block->memory));
  Napi::Value handle = WrapBlock(env, block);
  napi_value array_buffer = nullptr;
  if (bytes == 0) {
    napi_create_arraybuffer(env, 0, nullptr, &array_buffer);
  } else {
    auto* ref = new BlockRef(block);
    napi_status status = napi_create_external_arraybuffer(
        env, block->memory.host_ptr(), bytes,
        [](napi_env, void*, void* hint) {
          auto* ref = static_cast<BlockRef*>(hint);
          if (!(*ref)->detached) ReleaseUnowned(**ref, "freeing page-locked memory that was collected");
          delete ref;
        },
        ref, &array_buffer);
    if (status != napi_ok) {
      delete ref;
      block->detached = true;  // the handle's finalizer frees it
      throw Napi::Error::New(env,
                             "cannot create an ArrayBuffer over page-locked memory (this runtime refuses "
                             "external ArrayBuffers)");
    }
  }
  Napi::Array result = Napi::Array::New(env, 4);
  result.Set(0u, handle);
  result.Set(1u, Napi::Value(env, array_buffer));
  result.Set(2u, HostPointer(env, block->memory));
  result.Set(3u, Pointer(env, block->memory.device_ptr()));
  return result;
}

// hostRegister(device, view: Uint8Array, offset, size, flags) -> [handle, hostPtr, devicePtr]
Napi::Value HostRegister(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::TypedArray view = info[1].As<Napi::TypedArray>();
  size_t offset = js::SizeArg(info[2]);
  size_t bytes = js::SizeArg(info[3]);
  unsigned flags = info[4].As<Napi::Number>().Uint32Value();
  void* data = nullptr;
  size_t length = 0;
  if (napi_get_typedarray_info(env, view, nullptr, &length, &data, nullptr, nullptr) != napi_ok) {
    js::ThrowTypeError(env, "owner must be a SharedArrayBuffer or a view of one");
  }
  // Checked here, at the moment of pinning: JavaScript may have detached or shrunk it meanwhile.
  if (offset > length || bytes > length - offset) {
    js::Check(env, rmmjs::Fail(RMMJS_ERR_OUT_OF_RANGE, "mempin: bytes " + std::to_string(offset) + " to " +
                                                           std::to_string(offset + bytes) + " are not within owner's " +
                                                           std::to_string(length) + " bytes"));
  }
  auto block = std::make_shared<Block>();
  void* start = bytes == 0 ? nullptr : static_cast<char*>(data) + offset;
  js::Check(env, HostMemory::Register(DeviceArg(info, 0), start, bytes, flags, &block->memory));
  Napi::Array result = Napi::Array::New(env, 3);
  result.Set(0u, WrapBlock(env, block));
  result.Set(1u, HostPointer(env, block->memory));
  result.Set(2u, Pointer(env, block->memory.device_ptr()));
  return result;
}

// managedAlloc(device, size, attachGlobal) -> [handle, ptr]
Napi::Value ManagedAlloc(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto block = std::make_shared<Block>();
  js::Check(env, HostMemory::AllocateManaged(DeviceArg(info, 0), js::SizeArg(info[1]),
                                             info[2].As<Napi::Boolean>().Value(), &block->memory));
  Napi::Array result = Napi::Array::New(env, 2);
  result.Set(0u, WrapBlock(env, block));
  result.Set(1u, Pointer(env, block->memory.device_ptr()));
  return result;
}

// detach(handle, arrayBuffer): the ArrayBuffer over page-locked memory gives it up (length 0). One
// that JavaScript detached already keeps the memory where it went (see the top of this file).
Napi::Value Detach(const Napi::CallbackInfo& info) {
  Block& block = BlockArg(info, 0);
  bool detached = false;
  napi_value array_buffer = info[1];
  if (napi_is_detached_arraybuffer(info.Env(), array_buffer, &detached) != napi_ok) detached = false;
  if (detached && block.memory.bytes() > 0) return info.Env().Undefined();
  if (!detached && info[1].As<Napi::ArrayBuffer>().ByteLength() > 0) {
    if (napi_detach_arraybuffer(info.Env(), array_buffer) != napi_ok) {
      throw Napi::Error::New(info.Env(), "cannot detach the ArrayBuffer over page-locked memory");
    }
  }
  block.detached = true;
  return info.Env().Undefined();
}

// release(handle): frees or unregisters now (once; a failure leaves it to be retried). Memory that
// an ArrayBuffer still owns is left to that one's finalizer.
Napi::Value Release(const Napi::CallbackInfo& info) {
  Block& block = BlockArg(info, 0);
  if (!block.OwnedByArrayBuffer()) js::Check(info.Env(), block.memory.Release());
  return info.Env().Undefined();
}

// address(view: Uint8Array) -> bigint: where its bytes are.
Napi::Value Address(const Napi::CallbackInfo& info) {
  void* data = nullptr;
  if (napi_get_typedarray_info(info.Env(), info[0], nullptr, nullptr, &data, nullptr, nullptr) != napi_ok) {
    js::ThrowTypeError(info.Env(), "bytes must be an ArrayBuffer, a SharedArrayBuffer or an ArrayBufferView");
  }
  return Pointer(info.Env(), reinterpret_cast<uintptr_t>(data));
}

}  // namespace

RMMJS_ADDON(rmmjs_emm_plugin, {"hostAlloc", HostAlloc}, {"hostRegister", HostRegister}, {"managedAlloc", ManagedAlloc},
            {"detach", Detach}, {"release", Release}, {"address", Address})
