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

inline char* AppendDecimal(char* out, uint64_t value) {
  char digits[20];
  int count = 0;
  do {
    digits[count++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0);
  while (count > 0) *out++ = digits[--count];
  return out;
}

// Lowercase hexadecimal without a prefix (RMM's format_stream: `std::hex << stream`).
inline char* AppendHex(char* out, uint64_t value) {
  static const char kDigits[] = "0123456789abcdef";
  char digits[16];
  int count = 0;
  do {
    digits[count++] = kDigits[value & 0xf];
    value >>= 4;
  } while (value != 0);
  while (count > 0) *out++ = digits[--count];
  return out;
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
  char digits[20];
  char* end = AppendDecimal(digits, value);
  for (int length = static_cast<int>(end - digits); length < width; length++) *out++ = pad;
  std::memcpy(out, digits, end - digits);
  return out + (end - digits);
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
    return AppendPadded(out, time.micros, 6, '0');
  }

 private:
  int64_t second_ = -1;
  char hms_[8];  // "HH:MM:SS", not terminated
};

}  // namespace log_format
}  // namespace rmmjs

#endif  // RMMJS_LOG_FORMAT_HPP
