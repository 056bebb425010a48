// Compiled into the addons that call JavaScript from native resources (see js_environment.hpp).
#include "rmmjs/js_environment.hpp"

#include <utility>

#include "rmmjs/resource.hpp"

namespace rmmjs {

namespace {

using EnvironmentBox = std::shared_ptr<JsEnvironment>;

std::string StringValue(napi_env env, napi_value value) {
  size_t length = 0;
  if (napi_get_value_string_utf8(env, value, nullptr, 0, &length) != napi_ok) return "";
  std::string text(length, '\0');
  napi_get_value_string_utf8(env, value, text.data(), length + 1, &length);
  return text;
}

}  // namespace

std::shared_ptr<JsEnvironment>* JsEnvironment::Install(napi_env env) {
  auto* box = new EnvironmentBox(new JsEnvironment(env));
  JsEnvironment* self = box->get();
  // The threadsafe function keeps its own share of the state until it is finalized (its
  // call_js may still run, with env == nullptr after the environment ended: then it does nothing).
  auto* share = new EnvironmentBox(*box);
  napi_value name = nullptr;
  napi_create_string_utf8(env, "rmmjs:release-callbacks", NAPI_AUTO_LENGTH, &name);
  napi_status status = napi_create_threadsafe_function(
      env, nullptr, nullptr, name, 0, 1, share,
      [](napi_env, void* data, void*) {
        auto* share = static_cast<EnvironmentBox*>(data);
        {
          // Finalized (by Teardown's release, or by Node when the environment ends first):
          // no other thread may call it from now on.
          std::lock_guard<std::mutex> lock((*share)->mutex_);
          (*share)->wake_ = nullptr;
        }
        delete share;
      },
      self,
      [](napi_env env, napi_value, void* context, void*) {
        if (env != nullptr) static_cast<JsEnvironment*>(context)->DeleteOrphans();
      },
      &self->wake_);
  if (status == napi_ok) {
    napi_unref_threadsafe_function(env, self->wake_);  // never keeps the event loop alive
  } else {
    delete share;
    self->wake_ = nullptr;
  }
  napi_add_env_cleanup_hook(
      env,
      [](void* arg) {
        auto* box = static_cast<EnvironmentBox*>(arg);
        (*box)->Teardown();
        delete box;
      },
      box);
  return box;
}

JsEnvironment::~JsEnvironment() = default;

JsReach JsEnvironment::Reach() const {
  if (!alive_.load(std::memory_order_acquire)) return JsReach::kExited;
  return std::this_thread::get_id() == thread_ ? JsReach::kHere : JsReach::kOtherThread;
}

void JsEnvironment::SetExceptionSink(napi_value hold) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (exception_sink_ != nullptr) napi_delete_reference(env_, exception_sink_);
  exception_sink_ = nullptr;
  napi_create_reference(env_, hold, 1, &exception_sink_);
}

rmmjs_status JsEnvironment::HandOverException(const std::string& context) {
  napi_value exception = nullptr;
  napi_get_and_clear_last_exception(env_, &exception);
  std::string description = "an exception";
  napi_value sink = nullptr;
  if (exception_sink_ != nullptr && napi_get_reference_value(env_, exception_sink_, &sink) == napi_ok &&
      sink != nullptr) {
    napi_value receiver = nullptr;
    napi_value text = nullptr;
    napi_get_undefined(env_, &receiver);
    if (napi_call_function(env_, receiver, sink, 1, &exception, &text) == napi_ok) {
      description = StringValue(env_, text);
    } else {
      napi_value ignored = nullptr;
      napi_get_and_clear_last_exception(env_, &ignored);
    }
  }
  std::string message = context + " threw " + description;
  return CoreApi()->set_error(RMMJS_ERR_JS_EXCEPTION, 0, message.c_str());
}

// The environment's cleanup hook: its JavaScript can never run again. Deletes every reference
// while the environment still exists; the resources themselves may live on (they then fail).
void JsEnvironment::Teardown() {
  napi_threadsafe_function wake = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    alive_.store(false, std::memory_order_release);
    for (JsFunctions* functions : live_) {
      for (napi_ref ref : functions->refs_) napi_delete_reference(env_, ref);
      functions->refs_.clear();
    }
    live_.clear();
    for (napi_ref ref : orphans_) napi_delete_reference(env_, ref);
    orphans_.clear();
    if (exception_sink_ != nullptr) napi_delete_reference(env_, exception_sink_);
    exception_sink_ = nullptr;
    wake = std::exchange(wake_, nullptr);
  }
  if (wake != nullptr) napi_release_threadsafe_function(wake, napi_tsfn_abort);
}

void JsEnvironment::DeleteOrphans() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (napi_ref ref : orphans_) napi_delete_reference(env_, ref);
  orphans_.clear();
}

JsFunctions::JsFunctions(std::shared_ptr<JsEnvironment> environment, std::initializer_list<napi_value> functions)
    : environment_(std::move(environment)) {
  for (napi_value function : functions) {
    napi_ref ref = nullptr;
    napi_create_reference(environment_->env_, function, 1, &ref);
    refs_.push_back(ref);
  }
  std::lock_guard<std::mutex> lock(environment_->mutex_);
  environment_->live_.insert(this);
}

JsFunctions::~JsFunctions() {
  JsEnvironment& environment = *environment_;
  std::lock_guard<std::mutex> lock(environment.mutex_);
  if (!environment.alive_.load(std::memory_order_relaxed)) return;  // Teardown deleted them
  environment.live_.erase(this);
  if (std::this_thread::get_id() == environment.thread_) {
    for (napi_ref ref : refs_) napi_delete_reference(environment.env_, ref);
    return;
  }
  environment.orphans_.insert(environment.orphans_.end(), refs_.begin(), refs_.end());
  if (environment.wake_ != nullptr) {
    napi_call_threadsafe_function(environment.wake_, nullptr, napi_tsfn_nonblocking);
  }
}

rmmjs_status JsFunctions::Call(size_t index, size_t argc, const napi_value* argv, napi_value* result,
                               const std::string& context) {
  napi_env env = environment_->env_;
  napi_value function = nullptr;
  if (index >= refs_.size() || napi_get_reference_value(env, refs_[index], &function) != napi_ok ||
      function == nullptr) {
    return Unreachable(JsReach::kExited, context);
  }
  napi_value receiver = nullptr;
  napi_get_undefined(env, &receiver);
  if (napi_call_function(env, receiver, function, argc, argv, result) == napi_ok) return RMMJS_OK;
  bool pending = false;
  napi_is_exception_pending(env, &pending);
  if (pending) return environment_->HandOverException(context);
  std::string message = context + " cannot run: the JavaScript environment that created the resource is shutting down";
  return CoreApi()->set_error(RMMJS_ERR_WRONG_THREAD, 0, message.c_str());
}

std::string JsFunctions::Explain(JsReach reach) {
  switch (reach) {
    case JsReach::kHere:
      return "can run";
    case JsReach::kOtherThread:
      return "cannot run on this thread (it runs only on the JavaScript thread that created the resource)";
    case JsReach::kExited:
      return "cannot run: the JavaScript environment (thread) that created the resource has exited";
  }
  return "cannot run";
}

rmmjs_status JsFunctions::Unreachable(JsReach reach, const std::string& context) {
  std::string message = context + " " + Explain(reach);
  return CoreApi()->set_error(RMMJS_ERR_WRONG_THREAD, 0, message.c_str());
}

}  // namespace rmmjs
