// Message helpers shared by resources, with RMM's wording.
#ifndef RMMJS_FORMAT_HPP
#define RMMJS_FORMAT_HPP

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

namespace rmmjs {

// RMM's format_bytes: "1.500000 KiB".
inline std::string FormatBytes(std::size_t value) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"};
  std::size_t index = 0;
  double size = static_cast<double>(value);
  while (size > 1024) {
    size /= 1024;
    index++;
  }
  return std::to_string(size) + ' ' + kUnits[index];
}

// A pointer or stream as RMM prints them: lowercase hex, 0x-prefixed.
inline std::string FormatHex(std::uintptr_t value) {
  std::ostringstream out;
  out << "0x" << std::hex << value;
  return out.str();
}

// A stream as RMM's format_stream prints it in log messages: lowercase hex, no prefix ("0").
inline std::string FormatStream(std::uintptr_t stream) {
  std::ostringstream out;
  out << std::hex << stream;
  return out.str();
}

inline std::size_t AlignUp(std::size_t value, std::size_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

inline std::size_t AlignDown(std::size_t value, std::size_t alignment) { return value / alignment * alignment; }

}  // namespace rmmjs

#endif  // RMMJS_FORMAT_HPP
