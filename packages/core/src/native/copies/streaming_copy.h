// A memcpy for the staged copies' large chunks that writes with non-temporal (streaming) stores on
// x86-64: the destination's lines are not read first and do not evict the cache, so a copy moves
// two bytes of memory traffic per byte instead of three. Elsewhere it is std::memcpy.
#pragma once

#include <cstddef>

namespace rmmjs {

// Returns destination, as memcpy does.
void* StreamingCopy(void* destination, const void* source, size_t bytes);

}  // namespace rmmjs
