// The pieces of a log line as RMM's logger (rapids-logger over spdlog) prints them, shared by
// core's debug logger and the logging adaptor's CSV file:
//   %t   the OS thread id (gettid), as ThreadId()
//   %H:%M:%S and %f   local wall-clock time and its microseconds, as TimeOfDay::Append
//   %p   a pointer as glibc's printf prints it: "0x7f3a..." or "(nil)", as AppendPointer
// The writers fill a caller's char buffer and return the end, so that a line costs no allocation.
#ifndef RMMJS_LOG_FORMAT_HPP
#define RMMJS_LOG_FORMAT_HPP

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <ctime>

namespace rmmjs {
namespace log_format {

// spdlog's os::thread_id(): gettid(), read once per thread. Constant-initialised and filled on
// first use, so that a call costs one thread-local access (a dynamic initialiser would add a
// guard, and in a shared library a second __tls_get_addr call).
inline uint64_t ThreadId() {
  thread_local uint64_t id = 0;  // no thread has id 0
  if (__builtin_expect(id == 0, 0)) id = static_cast<uint64_t>(::syscall(SYS_gettid));
  return id;
}

// "00" to "99": decimal digits two at a time.
inline const char* DigitPairs() {
  static const char kPairs[] =
      "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
      "8081828384858687888990919293949596979899";
  return kPairs;
}

// 10^0 to 10^19: every power of ten a uint64_t holds.
struct PowersOfTen {
  uint64_t value[20] = {};
  constexpr PowersOfTen() {
    uint64_t power = 1;
    for (uint64_t& each : value) {
      each = power;
      power *= 10;  // wraps (harmlessly) after the last
    }
  }
};

inline int DecimalLength(uint64_t value) {
  static constexpr PowersOfTen kPowers;
  const int below = ((64 - __builtin_clzll(value | 1)) * 1233) >> 12;  // log10 of 2^bits, rounded down
  return below + ((value | 1) >= kPowers.value[below]);
}

namespace detail {
// The last `length` digits of value at out, four at a time from the right (each group's two pairs
// come from one remainder, so the divisions do not wait on each other).
template <class Unsigned>
inline void WriteDigits(char* out, Unsigned value, int length) {
  const char* pairs = DigitPairs();
  char* at = out + length;
  for (; at - out >= 4; at -= 4) {
    const Unsigned rest = value / 10000;
    const unsigned group = static_cast<unsigned>(value - rest * 10000);
    value = rest;
    std::memcpy(at - 4, pairs + (group / 100) * 2, 2);
    std::memcpy(at - 2, pairs + (group % 100) * 2, 2);
  }
  if (at - out >= 2) {
    std::memcpy(at - 2, pairs + static_cast<unsigned>(value % 100) * 2, 2);
    value /= 100;
    at -= 2;
  }
  if (at > out) *--at = static_cast<char>('0' + value % 10);
}
}  // namespace detail

// value in exactly `length` decimal digits (zero-padded on the left).
inline char* AppendDigits(char* out, uint64_t value, int length) {
  if (value <= UINT32_MAX) {  // 32-bit divisions are cheaper
    detail::WriteDigits(out, static_cast<uint32_t>(value), length);
  } else {
    detail::WriteDigits(out, value, length);
  }
  return out + length;
}

inline char* AppendDecimal(char* out, uint64_t value) { return AppendDigits(out, value, DecimalLength(value)); }

// The 8 lowercase hex digits of a 32-bit value, most significant first, as the bytes of a word
// in memory order: the nibbles are spread one a byte, then turned into digits all at once.
inline uint64_t HexDigits8(uint32_t value) {
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the digits are a little-endian word");
  uint64_t x = value;
  x = ((x & 0xffff0000u) << 16) | (x & 0x0000ffffu);
  x = ((x & 0x0000ff000000ff00ull) << 8) | (x & 0x000000ff000000ffull);
  x = ((x & 0x00f000f000f000f0ull) << 4) | (x & 0x000f000f000f000full);                 // byte i: nibble i
  const uint64_t letters = ((x + 0x0606060606060606ull) >> 4) & 0x0101010101010101ull;  // nibble >= 10
  x += 0x3030303030303030ull + letters * ('a' - '0' - 10);
  return __builtin_bswap64(x);
}

// Lowercase hexadecimal without a prefix (RMM's format_stream: `std::hex << stream`).
inline char* AppendHex(char* out, uint64_t value) {
  static const char kDigits[] = "0123456789abcdef";
  const int length = value == 0 ? 1 : (64 - __builtin_clzll(value) + 3) / 4;
  for (int i = length - 1; i >= 0; i--) {
    out[i] = kDigits[value & 0xf];
    value >>= 4;
  }
  return out + length;
}

// printf's "%p" on glibc.
inline char* AppendPointer(char* out, const void* ptr) {
  if (ptr == nullptr) {
    std::memcpy(out, "(nil)", 5);
    return out + 5;
  }
  *out++ = '0';
  *out++ = 'x';
  return AppendHex(out, reinterpret_cast<uintptr_t>(ptr));
}

// AppendHex for a buffer with room to spare (a writer's row buffer), without a loop: it writes
// whole words, so it needs room for 16 characters at out whatever the value's length (those past
// the returned end are scratch, for what follows to write over).
inline char* AppendHexWords(char* out, uint64_t value) {
  const int length = value == 0 ? 1 : (64 - __builtin_clzll(value) + 3) / 4;
  const uint64_t low = HexDigits8(static_cast<uint32_t>(value));
  if (length <= 8) {
    const uint64_t digits = low >> (8 * (8 - length));  // the last `length` digits, first
    std::memcpy(out, &digits, 8);
  } else {
    const int high_length = length - 8;
    const uint64_t high = HexDigits8(static_cast<uint32_t>(value >> 32)) >> (8 * (8 - high_length));
    std::memcpy(out, &high, 8);
    std::memcpy(out + high_length, &low, 8);
  }
  return out + length;
}

// AppendPointer through AppendHexWords: needs room for 18 characters at out.
inline char* AppendPointerWords(char* out, const void* ptr) {
  if (ptr == nullptr) {
    std::memcpy(out, "(nil)", 5);
    return out + 5;
  }
  std::memcpy(out, "0x", 2);
  return AppendHexWords(out + 2, reinterpret_cast<uintptr_t>(ptr));
}

// `value` right-aligned in `width` characters, padded with `pad` (spdlog's "%6t" pads with
// spaces, "%f" with zeros); never truncated.
inline char* AppendPadded(char* out, uint64_t value, int width, char pad) {
  const int length = DecimalLength(value);
  for (int i = length; i < width; i++) *out++ = pad;
  return AppendDigits(out, value, length);
}

inline char* AppendText(char* out, const char* text, size_t length) {
  std::memcpy(out, text, length);
  return out + length;
}

// A wall-clock instant (CLOCK_REALTIME), as the time of a log line.
struct Timestamp {
  int64_t seconds;
  uint32_t micros;

  static Timestamp Now() {
    timespec now{};
    clock_gettime(CLOCK_REALTIME, &now);
    return {static_cast<int64_t>(now.tv_sec), static_cast<uint32_t>(now.tv_nsec / 1000)};
  }
};

// Writes timestamps as the local time of day, spdlog's "%H:%M:%S" then the microseconds ("%f").
// The broken-down time of the last second written is cached (as spdlog's pattern formatter
// caches it), so a timestamp costs no time zone conversion within a second. Not thread-safe:
// one per thread (ThisThread()) or per owner that serialises its calls.
class TimeOfDay {
 public:
  static TimeOfDay& ThisThread() {
    thread_local TimeOfDay time_of_day;
    return time_of_day;
  }

  // "HH:MM:SS<separator>ffffff" (the debug log uses ':', the CSV log '.').
  char* Append(char* out, Timestamp time, char separator) {
    if (time.seconds != second_) {
      const time_t seconds = static_cast<time_t>(time.seconds);
      std::tm local{};
      localtime_r(&seconds, &local);
      char text[16];
      std::strftime(text, sizeof(text), "%H:%M:%S", &local);
      std::memcpy(hms_, text, sizeof(hms_));
      second_ = time.seconds;
    }
    out = AppendText(out, hms_, sizeof(hms_));
    *out++ = separator;
    return AppendDigits(out, time.micros, 6);
  }

 private:
  int64_t second_ = -1;
  char hms_[8];  // "HH:MM:SS", not terminated
};

}  // namespace log_format
}  // namespace rmmjs

#endif  // RMMJS_LOG_FORMAT_HPP
