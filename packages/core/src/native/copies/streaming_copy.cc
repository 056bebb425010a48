#include "copies/streaming_copy.h"

#include <cstdint>
#include <cstring>

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

namespace rmmjs {

#if defined(__x86_64__)
void* StreamingCopy(void* destination, const void* source, size_t bytes) {
  auto* to = static_cast<char*>(destination);
  const auto* from = static_cast<const char*>(source);
  // Up to the first 64-byte line of the destination, and anything too short to stream: memcpy.
  size_t head = (64 - (reinterpret_cast<uintptr_t>(to) & 63)) & 63;
  if (bytes < head + 256) return std::memcpy(to, from, bytes);
  std::memcpy(to, from, head);
  to += head;
  from += head;
  bytes -= head;
  size_t lines = bytes / 64;
  for (size_t i = 0; i < lines; i++) {
    __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from));
    __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + 16));
    __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + 32));
    __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + 48));
    _mm_stream_si128(reinterpret_cast<__m128i*>(to), a);
    _mm_stream_si128(reinterpret_cast<__m128i*>(to + 16), b);
    _mm_stream_si128(reinterpret_cast<__m128i*>(to + 32), c);
    _mm_stream_si128(reinterpret_cast<__m128i*>(to + 48), d);
    to += 64;
    from += 64;
  }
  // Streaming stores are weakly ordered: make them visible before the DMA or the caller reads.
  _mm_sfence();
  std::memcpy(to, from, bytes - lines * 64);
  return destination;
}
#else
void* StreamingCopy(void* destination, const void* source, size_t bytes) {
  return std::memcpy(destination, source, bytes);
}
#endif

}  // namespace rmmjs
