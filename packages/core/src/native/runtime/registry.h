// The process-wide per-device resource registry (every isolate and thread shares it).
#pragma once

#include <vector>

#include "rmmjs/abi.h"

namespace rmmjs {

// *out receives a new reference; a device with no resource set gets the default one.
rmmjs_status GetPerDeviceResource(int device, rmmjs_resource** out);
rmmjs_status GetCurrentDeviceResource(rmmjs_resource** out);
// Retains mr; *previous (when not null) receives the old resource's reference.
rmmjs_status SetPerDeviceResource(int device, rmmjs_resource* mr, rmmjs_resource** previous);
// The devices that have a resource (set, or the default one handed out), in order: RMM's
// initialized devices (the keys of Python's per-device dictionary).
std::vector<int> InitializedDevices();

}  // namespace rmmjs
