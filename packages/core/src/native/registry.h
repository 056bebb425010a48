// The process-wide per-device resource registry (every isolate and thread shares it).
#pragma once

#include "rmmjs/abi.h"

namespace rmmjs {

// *out receives a new reference; a device with no resource set gets the default one.
rmmjs_status GetPerDeviceResource(int device, rmmjs_resource** out);
rmmjs_status GetCurrentDeviceResource(rmmjs_resource** out);
// Retains mr; *previous (when not null) receives the old resource's reference.
rmmjs_status SetPerDeviceResource(int device, rmmjs_resource* mr, rmmjs_resource** previous);

}  // namespace rmmjs
