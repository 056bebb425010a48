// The signatures of the tokens of share() and transfer() (src/tokens.ts): SipHash-2-4, a keyed
// hash made for short inputs, under a key made at random once per process and never handed out.
// Every thread of the process signs and checks with the same key, so a token made on one thread
// is recognised on another; a forged or altered one, or one from another process, is not.
#pragma once

#include <string>

namespace rmmjs {

// A random name of this process (16 hex digits): tokens say where they were made (a pid can be
// reused by a later process).
const std::string& ProcessInstance();
// The signature of text (16 hex digits).
std::string TokenSignature(const std::string& text);
// Whether signature is text's, compared in constant time.
bool SignatureMatches(const std::string& text, const std::string& signature);

}  // namespace rmmjs
