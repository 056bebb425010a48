// @rmmjs/interop's addon: DLPack capsules and CUDA IPC.
#include "rmmjs/addon.hpp"
#include "interop.h"

namespace interop = rmmjs::interop;

RMMJS_ADDON(rmmjs_interop, {"toDLPack", interop::ToDLPack}, {"fromDLPack", interop::FromDLPack},
            {"capsuleInfo", interop::CapsuleInfo}, {"releaseCapsule", interop::ReleaseCapsule},
            {"isCapsule", interop::IsCapsule}, {"exportIpc", interop::ExportIpc},
            {"newLeaseGuard", interop::NewLeaseGuard}, {"leaseActive", interop::LeaseActive},
            {"processToken", interop::ProcessToken}, {"openIpc", interop::OpenIpc}, {"importPool", interop::ImportPool},
            {"closePool", interop::ClosePool}, {"openMappings", interop::OpenMappings}, {"sendPool", interop::SendPool},
            {"receivePoolDescriptor", interop::ReceivePoolDescriptor}, {"closeDescriptor", interop::CloseDescriptor})
