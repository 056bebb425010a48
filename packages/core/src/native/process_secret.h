// What the tokens of share() and transfer() are signed with (in JavaScript, src/tokens.ts): random
// bytes made once per process, the same for every thread, so that a token made on one thread is
// recognised on another and a forged or altered one, or one from another process, is not.
#pragma once

#include <array>
#include <cstdint>

namespace rmmjs {

struct ProcessSecret {
  std::array<uint8_t, 32> key;      // the HMAC key; never leaves the process
  std::array<uint8_t, 8> instance;  // names this process in tokens (a pid can be reused)
};

const ProcessSecret& TheProcessSecret();

}  // namespace rmmjs
