#include "buffers/token_signature.h"

#include <cstdint>
#include <cstring>
#include <random>

namespace rmmjs {
namespace {

struct ProcessKey {
  uint64_t k0;
  uint64_t k1;
  std::string instance;
};

std::string Hex(uint64_t value) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; i--, value >>= 4) out[i] = kDigits[value & 15];
  return out;
}

const ProcessKey& Key() {
  static const ProcessKey key = [] {
    std::random_device random;  // the kernel's generator (getrandom) with libstdc++ on Linux
    auto next = [&] { return (static_cast<uint64_t>(random()) << 32) | random(); };
    uint64_t k0 = next();
    uint64_t k1 = next();
    return ProcessKey{k0, k1, Hex(next())};
  }();
  return key;
}

uint64_t Rotate(uint64_t x, int bits) { return (x << bits) | (x >> (64 - bits)); }

// SipHash-2-4 (Aumasson and Bernstein, 2012) of data under (k0, k1).
uint64_t SipHash24(uint64_t k0, uint64_t k1, const unsigned char* data, size_t length) {
  uint64_t v0 = 0x736f6d6570736575ULL ^ k0;
  uint64_t v1 = 0x646f72616e646f6dULL ^ k1;
  uint64_t v2 = 0x6c7967656e657261ULL ^ k0;
  uint64_t v3 = 0x7465646279746573ULL ^ k1;
  auto round = [&] {
    v0 += v1, v1 = Rotate(v1, 13), v1 ^= v0, v0 = Rotate(v0, 32);
    v2 += v3, v3 = Rotate(v3, 16), v3 ^= v2;
    v0 += v3, v3 = Rotate(v3, 21), v3 ^= v0;
    v2 += v1, v1 = Rotate(v1, 17), v1 ^= v2, v2 = Rotate(v2, 32);
  };
  auto compress = [&](uint64_t word) {
    v3 ^= word;
    round();
    round();
    v0 ^= word;
  };
  size_t whole = length - length % 8;
  for (size_t i = 0; i < whole; i += 8) {
    uint64_t word = 0;
    for (int byte = 7; byte >= 0; byte--) word = (word << 8) | data[i + byte];  // little-endian
    compress(word);
  }
  uint64_t last = static_cast<uint64_t>(length & 0xff) << 56;
  for (size_t i = whole; i < length; i++) last |= static_cast<uint64_t>(data[i]) << (8 * (i - whole));
  compress(last);
  v2 ^= 0xff;
  for (int i = 0; i < 4; i++) round();
  return v0 ^ v1 ^ v2 ^ v3;
}

}  // namespace

const std::string& ProcessInstance() { return Key().instance; }

std::string TokenSignature(const std::string& text) {
  const ProcessKey& key = Key();
  return Hex(SipHash24(key.k0, key.k1, reinterpret_cast<const unsigned char*>(text.data()), text.size()));
}

bool SignatureMatches(const std::string& text, const std::string& signature) {
  std::string expected = TokenSignature(text);
  if (signature.size() != expected.size()) return false;
  unsigned char difference = 0;
  for (size_t i = 0; i < expected.size(); i++) difference |= expected[i] ^ signature[i];
  return difference == 0;
}

}  // namespace rmmjs
