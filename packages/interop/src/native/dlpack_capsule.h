// DLPack capsules as JavaScript values (include/rmmjs/dlpack_capsule.h): tagged externals over an
// rmmjs_dlpack_capsule that owns a DLManagedTensorVersioned until a consumer takes it.
#pragma once

#include <napi.h>

#include <cstdint>

#include "dlpack.h"
#include "rmmjs/dlpack_capsule.h"

namespace rmmjs::interop {

// A capsule owning tensor (its deleter runs if nobody takes it), which holds `bytes` of device
// memory: tracked as core tracks a DeviceBuffer (rmmjs/abi.h, track_owner), so that the collector
// feels the memory and a capsule dropped without being consumed gives it back before an allocation
// reports out of memory, not only when its finalizer runs.
Napi::Value WrapCapsule(Napi::Env env, dlpack::ManagedTensorVersioned* tensor, size_t bytes);
// The capsule a value is (not consumed or consumed), or nullptr when it is none.
rmmjs_dlpack_capsule* CapsuleOf(Napi::Env env, napi_value value);
// The capsule argument `what`: a TypeError ERR_INVALID_ARG_TYPE when it is no capsule.
rmmjs_dlpack_capsule* CapsuleArg(Napi::Env env, napi_value value, const char* what);
// Takes the tensor out of a capsule (which then holds no memory): ERR_INVALID_ARG_VALUE when it
// was consumed already.
dlpack::ManagedTensorVersioned* TakeTensor(Napi::Env env, rmmjs_dlpack_capsule* capsule, const char* what);
// Calls a tensor's deleter, if it has one.
void DeleteTensor(dlpack::ManagedTensorVersioned* tensor);
// The RMMJS_MEMORY_* flags (rmmjs/abi.h) of the memory a tensor of toDLPack holds, which a view of
// it passes on; 0 for another producer's tensor.
uint32_t ExportedMemoryFlags(const dlpack::ManagedTensorVersioned& tensor);

}  // namespace rmmjs::interop
