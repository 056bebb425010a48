#include "process_secret.h"

#include <random>

namespace rmmjs {
namespace {

ProcessSecret Generate() {
  std::random_device random;  // the kernel's generator (getrandom) with libstdc++ on Linux
  ProcessSecret secret{};
  for (uint8_t& byte : secret.key) byte = static_cast<uint8_t>(random());
  for (uint8_t& byte : secret.instance) byte = static_cast<uint8_t>(random());
  return secret;
}

}  // namespace

const ProcessSecret& TheProcessSecret() {
  static const ProcessSecret secret = Generate();  // thread-safe initialisation
  return secret;
}

}  // namespace rmmjs
