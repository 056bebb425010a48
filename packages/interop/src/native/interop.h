// The functions of @rmmjs/interop's addon (addon.cc exports them), one group per file. JavaScript
// (src/*.ts) validates their arguments first.
#pragma once

#include <napi.h>

namespace rmmjs::interop {

// to_dlpack.cc, from_dlpack.cc
Napi::Value ToDLPack(const Napi::CallbackInfo& info);
Napi::Value FromDLPack(const Napi::CallbackInfo& info);
Napi::Value CapsuleInfo(const Napi::CallbackInfo& info);
Napi::Value ReleaseCapsule(const Napi::CallbackInfo& info);
Napi::Value IsCapsule(const Napi::CallbackInfo& info);

// ipc_export.cc
Napi::Value ExportIpc(const Napi::CallbackInfo& info);
Napi::Value NewLeaseGuard(const Napi::CallbackInfo& info);
Napi::Value LeaseActive(const Napi::CallbackInfo& info);
Napi::Value ProcessToken(const Napi::CallbackInfo& info);

// ipc_import.cc
Napi::Value OpenIpc(const Napi::CallbackInfo& info);
Napi::Value ImportPool(const Napi::CallbackInfo& info);
Napi::Value ClosePool(const Napi::CallbackInfo& info);
Napi::Value OpenMappings(const Napi::CallbackInfo& info);

// ipc_pool_socket.cc
Napi::Value SendPool(const Napi::CallbackInfo& info);
Napi::Value ReceivePoolDescriptor(const Napi::CallbackInfo& info);
Napi::Value CloseDescriptor(const Napi::CallbackInfo& info);

}  // namespace rmmjs::interop
