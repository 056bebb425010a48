// The call stack of an allocation, as RMM's stack_trace: captured cheaply when the allocation is
// made, turned into text only when someone asks for the outstanding allocations.
//
// On a JavaScript thread that loaded this addon (the main thread, or a worker that imported
// @rmmjs/tracking) it is the JavaScript stack, from a capture function handed over by
// src/tracking-resource-adaptor.ts. Anywhere else (a native thread, a worker without the package,
// or when the JavaScript call fails) it is the native stack, from backtrace().
#pragma once

#include <napi.h>

#include <memory>
#include <ostream>
#include <string>
#include <unordered_map>
#include <vector>

namespace rmmjs {

class CallStack {
 public:
  static std::shared_ptr<const CallStack> Capture();

  // Lets this thread's JavaScript environment answer Capture(): capture() returns the stack
  // string of its caller (`Error.captureStackTrace` format).
  static void SetJsCapturer(Napi::Env env, Napi::Function capture);

  // The text of native frames by address. Resolving one (dladdr) scans the symbol table of its
  // library; the stacks of one listing share most frames, so they are resolved once per listing.
  using FrameNames = std::unordered_map<void*, std::string>;

  // One line per frame, as RMM prints them: "#0 in <frame>\n".
  void Print(std::ostream& out, FrameNames& names) const;

 private:
  std::string js_stack_;  // as V8 formats it; empty for a native stack
  std::vector<void*> native_frames_;
};

}  // namespace rmmjs
