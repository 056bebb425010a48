// The call stack of an allocation, as RMM's stack_trace: captured cheaply when the allocation is
// made, turned into text only when someone asks for the outstanding allocations.
//
// On a JavaScript thread that loaded this addon (the main thread, or a worker that imported
// @rmmjs/tracking) it is the JavaScript stack, from a capture function handed over by
// src/tracking-resource-adaptor.ts. Anywhere else (a native thread, a worker without the package,
// or when the JavaScript call fails) it is the native stack, from backtrace().
#pragma once

#include <napi.h>

#include <atomic>
#include <cstddef>
#include <ostream>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace rmmjs {

// Counted by hand, not by std::shared_ptr: the record of an allocation holds a plain pointer (one
// reference), so that records without a stack are plain words that the table copies freely.
class CallStack {
 public:
  // A new stack holding one reference, the caller's. May throw std::bad_alloc.
  static const CallStack* Capture();

  void Retain() const { references_.fetch_add(1, std::memory_order_relaxed); }
  // Drops a reference (of a stack or of nullptr): the last one deletes the stack.
  static void Release(const CallStack* stack) {
    if (stack != nullptr && stack->references_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete stack;
  }

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
  mutable std::atomic<size_t> references_{1};
};

// A reference to a stack (or to none) held for a scope: a listing's copy of a record's stack.
class CallStackRef {
 public:
  explicit CallStackRef(const CallStack* stack) : stack_(stack) {
    if (stack_ != nullptr) stack_->Retain();
  }
  CallStackRef(CallStackRef&& other) noexcept : stack_(std::exchange(other.stack_, nullptr)) {}
  CallStackRef(const CallStackRef&) = delete;
  CallStackRef& operator=(const CallStackRef&) = delete;
  CallStackRef& operator=(CallStackRef&& other) noexcept {
    std::swap(stack_, other.stack_);
    return *this;
  }
  ~CallStackRef() { CallStack::Release(stack_); }
  const CallStack* get() const { return stack_; }

 private:
  const CallStack* stack_;
};

}  // namespace rmmjs
