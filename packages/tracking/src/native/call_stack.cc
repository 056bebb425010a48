#include "call_stack.h"

#include <cxxabi.h>
#include <dlfcn.h>
#include <execinfo.h>

#include <cstdlib>
#include <memory>
#include <sstream>

namespace rmmjs {
namespace {

constexpr int kMaxNativeFrames = 64;  // as RMM's stack_trace

// The capture function of the JavaScript environment that runs on this thread.
struct JsCapturer {
  napi_env env;
  napi_ref capture;
};
thread_local JsCapturer* tl_js_capturer = nullptr;
// Set while the capture function runs: an allocation it makes (an Error.prepareStackTrace
// that allocates through the tracker) gets native frames instead of recursing.
thread_local bool tl_capturing_js = false;

void ForgetJsCapturer(void* data) {
  auto* capturer = static_cast<JsCapturer*>(data);
  if (tl_js_capturer == capturer) tl_js_capturer = nullptr;
  napi_delete_reference(capturer->env, capturer->capture);
  delete capturer;
}

// Calls this thread's capture function; false (nothing pending left behind) when there is
// none or it cannot run (the environment is shutting down, the function threw).
bool CaptureJsStack(std::string* out) {
  JsCapturer* capturer = tl_js_capturer;
  if (capturer == nullptr || tl_capturing_js) return false;
  napi_env env = capturer->env;
  napi_handle_scope scope = nullptr;
  if (napi_open_handle_scope(env, &scope) != napi_ok) return false;
  napi_value capture = nullptr;
  napi_value receiver = nullptr;
  napi_value result = nullptr;
  size_t length = 0;
  tl_capturing_js = true;
  bool captured = napi_get_reference_value(env, capturer->capture, &capture) == napi_ok && capture != nullptr &&
                  napi_get_undefined(env, &receiver) == napi_ok &&
                  napi_call_function(env, receiver, capture, 0, nullptr, &result) == napi_ok &&
                  napi_get_value_string_utf8(env, result, nullptr, 0, &length) == napi_ok;
  tl_capturing_js = false;
  if (captured) {
    out->resize(length);
    captured = napi_get_value_string_utf8(env, result, &(*out)[0], length + 1, &length) == napi_ok &&
               out->find("\n    at ") != std::string::npos;
  } else {
    bool pending = false;
    napi_value exception = nullptr;
    if (napi_is_exception_pending(env, &pending) == napi_ok && pending) {
      napi_get_and_clear_last_exception(env, &exception);
    }
  }
  napi_close_handle_scope(env, scope);
  return captured;
}

// A native frame as RMM prints it: "<demangled symbol> from <library>", else backtrace_symbols'.
std::string DescribeNativeFrame(void* address) {
  Dl_info info{};
  if (dladdr(address, &info) != 0 && info.dli_sname != nullptr) {
    int status = -1;
    char* demangled = abi::__cxa_demangle(info.dli_sname, nullptr, nullptr, &status);
    std::string name = status == 0 ? demangled : info.dli_sname;
    std::free(demangled);
    return name + " from " + (info.dli_fname != nullptr ? info.dli_fname : "?");
  }
  char** symbols = backtrace_symbols(&address, 1);
  std::string fallback = symbols != nullptr && symbols[0] != nullptr ? symbols[0] : "??";
  std::free(symbols);
  return fallback;
}

}  // namespace

void CallStack::SetJsCapturer(Napi::Env env, Napi::Function capture) {
  if (tl_js_capturer != nullptr && tl_js_capturer->env == env) {
    napi_delete_reference(env, tl_js_capturer->capture);
    NAPI_THROW_IF_FAILED_VOID(env, napi_create_reference(env, capture, 1, &tl_js_capturer->capture));
    return;
  }
  auto* capturer = new JsCapturer{env, nullptr};
  napi_status status = napi_create_reference(env, capture, 1, &capturer->capture);
  if (status == napi_ok) status = napi_add_env_cleanup_hook(env, ForgetJsCapturer, capturer);
  if (status != napi_ok) {
    if (capturer->capture != nullptr) napi_delete_reference(env, capturer->capture);
    delete capturer;
    NAPI_THROW_IF_FAILED_VOID(env, status);
  }
  tl_js_capturer = capturer;
}

const CallStack* CallStack::Capture() {
  auto stack = std::make_unique<CallStack>();
  if (!CaptureJsStack(&stack->js_stack_)) {
    stack->js_stack_.clear();
    void* frames[kMaxNativeFrames + 1];
    int depth = backtrace(frames, kMaxNativeFrames + 1);
    // Frame 0 is this function.
    if (depth > 1) stack->native_frames_.assign(frames + 1, frames + depth);
  }
  return stack.release();
}

void CallStack::Print(std::ostream& out, FrameNames& names) const {
  size_t index = 0;
  if (!js_stack_.empty()) {
    // "Error\n    at f (file:1:2)\n    at ..." -> "#0 in f (file:1:2)\n#1 in ..."
    std::istringstream lines(js_stack_);
    std::string line;
    while (std::getline(lines, line)) {
      size_t start = line.find_first_not_of(' ');
      if (start == std::string::npos || line.compare(start, 3, "at ") != 0) continue;
      out << '#' << index++ << " in " << line.substr(start + 3) << '\n';
    }
    return;
  }
  for (void* frame : native_frames_) {
    auto named = names.find(frame);
    if (named == names.end()) named = names.emplace(frame, DescribeNativeFrame(frame)).first;
    out << '#' << index++ << " in " << named->second << '\n';
  }
}

}  // namespace rmmjs
