// Resources shared with other threads (DeviceMemoryResource#share / fromShared): a process-wide
// table from an id to a resource that holds no reference. A resource stays in it until its last
// reference goes (Release calls ForgetShared before destroying it), so a token is good exactly as
// long as some thread, buffer, adaptor or the registry still holds the resource.
#pragma once

#include <cstdint>

#include "rmmjs/abi.h"

namespace rmmjs {

// The id mr is shared under (the same id every time). The caller holds a reference to mr.
uint64_t ShareResource(rmmjs_resource* mr);
// A new reference to the resource shared under id, or nullptr when it is gone (or never was).
rmmjs_resource* RetainShared(uint64_t id);
// Takes mr out of the table: called once its refcount reached 0, before it is destroyed.
void ForgetShared(const rmmjs_resource* mr);

}  // namespace rmmjs
