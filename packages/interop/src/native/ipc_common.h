// What the CUDA IPC files share: the errors they throw and the text forms of a handle.
#pragma once

#include <napi.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "rmmjs/napi.hpp"

namespace rmmjs::interop {

// TypeError ERR_INVALID_ARG_VALUE: an argument rmmjs cannot use.
[[noreturn]] inline void ThrowInvalidValue(Napi::Env env, const std::string& message) {
  throw Napi::Error(env, js::MakeError(env, RMMJS_ERR_INVALID_ARGUMENT, message, 0, "ERR_INVALID_ARG_VALUE"));
}

inline std::string Hex(const void* data, size_t bytes) {
  static const char kDigits[] = "0123456789abcdef";
  std::string text;
  for (size_t i = 0; i < bytes; ++i) {
    unsigned char byte = static_cast<const unsigned char*>(data)[i];
    text += kDigits[byte >> 4];
    text += kDigits[byte & 15];
  }
  return text;
}

// Hexadecimal digits (JavaScript checked them) into `bytes` bytes.
inline void FromHex(const std::string& text, void* out, size_t bytes) {
  auto digit = [](char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; };
  for (size_t i = 0; i < bytes && 2 * i + 1 < text.size(); ++i) {
    static_cast<unsigned char*>(out)[i] = static_cast<unsigned char>(digit(text[2 * i]) << 4 | digit(text[2 * i + 1]));
  }
}

// How a shared memory pool is named between processes: the exporting process and its handle there.
std::string PoolId(uintptr_t pool);

}  // namespace rmmjs::interop
