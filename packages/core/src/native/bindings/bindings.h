// The functions core's addon exports, one table per bind_*.cc (addon.cc exports them all), in
// the shape every addon's RMMJS_ADDON list has (rmmjs/addon.hpp).
#pragma once

#include <cstddef>

#include "rmmjs/addon.hpp"

namespace rmmjs {
namespace bind {

struct MethodTable {
  const js::Method* methods;
  size_t count;
};

template <size_t kCount>
constexpr MethodTable TableOf(const js::Method (&methods)[kCount]) {
  return {methods, kCount};
}

extern const MethodTable kCudaMethods;
extern const MethodTable kResourceMethods;
extern const MethodTable kStreamMethods;
extern const MethodTable kBufferMethods;
extern const MethodTable kLentMemoryMethods;
extern const MethodTable kLoggerMethods;
extern const MethodTable kThreadMethods;
extern const MethodTable kReclaimMethods;

}  // namespace bind
}  // namespace rmmjs
