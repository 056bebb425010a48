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

// spdlog's os::thread_id(): gettid(), read once per thread.
inline uint64_t ThreadId() {
  thread_local const uint64_t id = static_cast<uint64_t>(::syscall(SYS_gettid));
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

inline int DecimalLength(uint64_t value) {
  int length = 1;
  for (; value >= 10000; value /= 10000) length += 4;
  return length + (value >= 10) + (value >= 100) + (value >= 1000);
}

// value in exactly `length` decimal digits (zero-padded on the left).
inline char* AppendDigits(char* out, uint64_t value, int length) {
  const char* pairs = DigitPairs();
  char* end = out + length;
  char* at = end;
  while (at - out >= 2) {
    const unsigned pair = static_cast<unsigned>(value % 100) * 2;
    value /= 100;
    *--at = pairs[pair + 1];
    *--at = pairs[pair];
  }
  if (at > out) *--at = static_cast<char>('0' + value % 10);
  return end;
}

inline char* AppendDecimal(char* out, uint64_t value) { return AppendDigits(out, value, DecimalLength(value)); }

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
