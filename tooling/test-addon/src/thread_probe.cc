// Allocations through a resource from threads that run no JavaScript, as a native library or a
// thread pool makes them:
//   allocateOnNativeThread(mr, nbytes) -> [status, message]: allocate and free on a new thread
//     (the calling thread waits for it);
//   allocateOnThreadPool(mr, nbytes) -> Promise<[status, message]>: the same on libuv's pool;
//   exitHeld(mr, nbytes, during) -> [held, status, message, during()'s result]: the same on a new
//     thread that then lets go of mr and exits, held at the first shared lock of the exit hooks
//     that its allocation left (librmmjs_hold_at_exit.so, preloaded) while during() runs here.
#include <dlfcn.h>

#include <string>
#include <thread>

#include "methods.h"
#include "rmmjs/addon.hpp"

namespace rmmjs::test_addon {
namespace {

struct Outcome {
  rmmjs_status status = RMMJS_OK;
  std::string message;
};

// Runs on the foreign thread.
Outcome RoundTrip(rmmjs_resource* mr, size_t bytes) {
  Outcome outcome;
  void* ptr = nullptr;
  outcome.status = CoreApi()->allocate(mr, bytes, 0, &ptr);
  if (outcome.status != RMMJS_OK) {
    outcome.message = LastErrorMessage();
    return outcome;
  }
  outcome.status = CoreApi()->deallocate(mr, ptr, bytes, 0);
  if (outcome.status != RMMJS_OK) outcome.message = LastErrorMessage();
  return outcome;
}

Napi::Value ToJs(Napi::Env env, const Outcome& outcome) {
  Napi::Array result = Napi::Array::New(env, 2);
  result.Set(0u, Napi::Number::New(env, outcome.status));
  result.Set(1u, Napi::String::New(env, outcome.message));
  return result;
}

size_t Bytes(const Napi::CallbackInfo& info) {
  if (!info[1].IsNumber()) js::ThrowTypeError(info.Env(), "nbytes must be a number");
  return static_cast<size_t>(info[1].As<Napi::Number>().DoubleValue());
}

class ThreadPoolRoundTrip : public Napi::AsyncWorker {
 public:
  ThreadPoolRoundTrip(Napi::Env env, ResourceRef mr, size_t bytes)
      : Napi::AsyncWorker(env, "rmmjs:thread-probe"),
        deferred_(Napi::Promise::Deferred::New(env)),
        mr_(std::move(mr)),
        bytes_(bytes) {}
  Napi::Promise Promise() { return deferred_.Promise(); }

 protected:
  void Execute() override { outcome_ = RoundTrip(mr_.get(), bytes_); }
  void OnOK() override { deferred_.Resolve(ToJs(Env(), outcome_)); }

 private:
  Napi::Promise::Deferred deferred_;
  ResourceRef mr_;
  size_t bytes_;
  Outcome outcome_;
};

// librmmjs_hold_at_exit.so's functions (see hold_at_exit.cc).
struct ExitHold {
  void (*arm)() = nullptr;
  int (*wait)(long ms) = nullptr;
  void (*release)() = nullptr;
};

ExitHold FindExitHold() {
  ExitHold hold;
  hold.arm = reinterpret_cast<void (*)()>(dlsym(RTLD_DEFAULT, "rmmjs_hold_at_exit"));
  hold.wait = reinterpret_cast<int (*)(long)>(dlsym(RTLD_DEFAULT, "rmmjs_hold_wait"));
  hold.release = reinterpret_cast<void (*)()>(dlsym(RTLD_DEFAULT, "rmmjs_hold_release"));
  return hold;
}

}  // namespace

Napi::Value ExitHeld(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ResourceRef mr = ResourceRef::Retain(js::ResourceArg(env, info[0], "mr"));
  size_t bytes = Bytes(info);
  if (!info[2].IsFunction()) js::ThrowTypeError(env, "during must be a function");
  ExitHold hold = FindExitHold();
  if (hold.arm == nullptr || hold.wait == nullptr || hold.release == nullptr) {
    js::ThrowTypeError(env, "exitHeld needs librmmjs_hold_at_exit.so preloaded (LD_PRELOAD)");
  }
  Outcome outcome;
  // The thread's reference goes before it exits, so that the caller's is the last one.
  std::thread thread([&, mr = std::move(mr)]() mutable {
    outcome = RoundTrip(mr.get(), bytes);
    mr = ResourceRef();
    hold.arm();
  });
  bool held = hold.wait(10000) != 0;
  Napi::Value result;
  try {
    result = info[2].As<Napi::Function>().Call({});
  } catch (...) {
    hold.release();
    thread.join();
    throw;
  }
  hold.release();
  thread.join();
  Napi::Array out = Napi::Array::New(env, 4);
  out.Set(0u, Napi::Boolean::New(env, held));
  out.Set(1u, Napi::Number::New(env, outcome.status));
  out.Set(2u, Napi::String::New(env, outcome.message));
  out.Set(3u, result);
  return out;
}

Napi::Value AllocateOnNativeThread(const Napi::CallbackInfo& info) {
  ResourceRef mr = ResourceRef::Retain(js::ResourceArg(info.Env(), info[0], "mr"));
  size_t bytes = Bytes(info);
  Outcome outcome;
  std::thread thread([&] { outcome = RoundTrip(mr.get(), bytes); });
  thread.join();
  return ToJs(info.Env(), outcome);
}

Napi::Value AllocateOnThreadPool(const Napi::CallbackInfo& info) {
  ResourceRef mr = ResourceRef::Retain(js::ResourceArg(info.Env(), info[0], "mr"));
  auto* worker = new ThreadPoolRoundTrip(info.Env(), std::move(mr), Bytes(info));
  Napi::Promise promise = worker->Promise();
  worker->Queue();
  return promise;
}

}  // namespace rmmjs::test_addon
