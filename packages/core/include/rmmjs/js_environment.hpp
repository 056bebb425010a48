// Calling JavaScript from a native resource (used by @rmmjs/callback and
// @rmmjs/failure-callback; an addon compiles core's addon-support/js_environment.cc with it:
// rmmjs_addon(... JS_ENVIRONMENT) in @rmmjs/core's cmake/rmmjs_addon.cmake).
//
// A resource's JavaScript functions belong to the Node-API environment (the main thread or a
// worker) that created the resource. They run only on that environment's thread and only while
// it exists; every other caller (another worker, a native thread, a thread-pool thread, anyone
// after the worker exited) gets RMMJS_ERR_WRONG_THREAD and no JavaScript runs.
//
// Exceptions: Node-API keeps the pending exception per addon (per napi_env), so an exception left
// pending here would be invisible to @rmmjs/core's bindings and would resurface at this addon's
// next call. A call that throws therefore clears it and hands the error object to core's
// holdJsException (from '@rmmjs/core/addon'), which core's error factory returns for
// RMMJS_ERR_JS_EXCEPTION: the caller gets the very object that was thrown.
#ifndef RMMJS_JS_ENVIRONMENT_HPP
#define RMMJS_JS_ENVIRONMENT_HPP

#include <node_api.h>

#include <atomic>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "rmmjs/abi.h"

namespace rmmjs {

class JsFunctions;

// Where JavaScript of an environment stands from the calling thread's point of view.
enum class JsReach {
  kHere,         // this is the environment's thread and the environment is alive
  kOtherThread,  // another thread: its JavaScript cannot run here
  kExited,       // the environment was torn down (its worker exited)
};

// The addon's state in one Node-API environment, shared by the resources created there (which
// may outlive it: the registry and other threads can keep them).
class JsEnvironment {
 public:
  // Creates env's state (from the addon's module init). The returned box lives until env's
  // cleanup; pass it as the data of the addon's functions.
  static std::shared_ptr<JsEnvironment>* Install(napi_env env);

  ~JsEnvironment();
  JsEnvironment(const JsEnvironment&) = delete;
  JsEnvironment& operator=(const JsEnvironment&) = delete;

  napi_env env() const { return env_; }
  JsReach Reach() const;

  // Core's holdJsException(error) -> description (handed over once per environment by the
  // package's JavaScript).
  void SetExceptionSink(napi_value hold);
  // Clears the pending exception of env, hands it to holdJsException and returns
  // RMMJS_ERR_JS_EXCEPTION with the message "<context>: <description of the error>".
  rmmjs_status HandOverException(const std::string& context);

 private:
  friend class JsFunctions;
  explicit JsEnvironment(napi_env env) : env_(env), thread_(std::this_thread::get_id()) {}
  void Teardown();
  void DeleteOrphans();

  napi_env env_;
  std::thread::id thread_;
  std::atomic<bool> alive_{true};
  std::mutex mutex_;                         // guards everything below and JsFunctions::refs_
  std::unordered_set<JsFunctions*> live_;    // whose references Teardown deletes
  std::vector<napi_ref> orphans_;            // of functions released on another thread
  napi_threadsafe_function wake_ = nullptr;  // runs DeleteOrphans there; null once finalized
  napi_ref exception_sink_ = nullptr;
};

// JavaScript functions a native object keeps alive for as long as it lives. Created on the
// environment's thread; destroyed on any thread: from another thread the references are deleted
// later on the environment's thread (a threadsafe function wakes it), and once the environment
// is gone there is nothing left to delete (its teardown deleted them).
class JsFunctions {
 public:
  JsFunctions(std::shared_ptr<JsEnvironment> environment, std::initializer_list<napi_value> functions);
  ~JsFunctions();
  JsFunctions(const JsFunctions&) = delete;
  JsFunctions& operator=(const JsFunctions&) = delete;

  napi_env env() const { return environment_->env(); }
  JsReach Reach() const { return environment_->Reach(); }

  // Calls function `index` with undefined as `this`. Only where Reach() is kHere, inside a
  // handle scope. An exception: see JsEnvironment::HandOverException. An environment that can
  // no longer run JavaScript (it is shutting down): RMMJS_ERR_WRONG_THREAD.
  rmmjs_status Call(size_t index, size_t argc, const napi_value* argv, napi_value* result, const std::string& context);

  // "cannot run on this thread (...)": why a function of reach `reach` was not called.
  static std::string Explain(JsReach reach);
  // RMMJS_ERR_WRONG_THREAD with the message "<context> <Explain(reach)>".
  static rmmjs_status Unreachable(JsReach reach, const std::string& context);

 private:
  friend class JsEnvironment;
  std::shared_ptr<JsEnvironment> environment_;
  std::vector<napi_ref> refs_;
};

// A Node-API handle scope: the values a native operation creates go when it returns (a native
// caller may run many operations inside one JavaScript call, or outside of any).
class JsHandleScope {
 public:
  explicit JsHandleScope(napi_env env) : env_(env) { napi_open_handle_scope(env_, &scope_); }
  ~JsHandleScope() {
    if (scope_ != nullptr) napi_close_handle_scope(env_, scope_);
  }
  JsHandleScope(const JsHandleScope&) = delete;
  JsHandleScope& operator=(const JsHandleScope&) = delete;

 private:
  napi_env env_;
  napi_handle_scope scope_ = nullptr;
};

}  // namespace rmmjs

#endif  // RMMJS_JS_ENVIRONMENT_HPP
