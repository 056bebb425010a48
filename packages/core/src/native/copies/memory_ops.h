// Copies, fills, prefetches and memory info; host memory and memcpy in host mode.
#pragma once

#include "rmmjs/abi.h"

namespace rmmjs {

// Stream-ordered copy between any two addresses (unified addressing). Host mode: memcpy.
rmmjs_status MemcpyAsync(void* dst, const void* src, size_t bytes, rmmjs_stream stream);
rmmjs_status MemsetAsync(void* dst, int value, size_t bytes, rmmjs_stream stream);
// Free and total memory of a device; of the host in host mode.
rmmjs_status MemGetInfo(int device, size_t* free_bytes, size_t* total_bytes);
// Prefetches managed (or, with HMM/ATS, system) memory as RMM's rmm::prefetch does: a no-op
// for memory the driver cannot prefetch, in host mode and without concurrent managed access.
// device -1 prefetches to the host.
rmmjs_status Prefetch(void* ptr, size_t bytes, int device, rmmjs_stream stream);
// The last prefetch location of managed memory: a device, -1 for the host, -2 for none.
rmmjs_status LastPrefetchLocation(void* ptr, size_t bytes, int* location);
bool IsManaged(const void* ptr);

}  // namespace rmmjs
