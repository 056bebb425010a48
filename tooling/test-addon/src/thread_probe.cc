// Allocations through a resource from threads that run no JavaScript, as a native library or a
// thread pool makes them:
//   allocateOnNativeThread(mr, nbytes) -> [status, message]: allocate and free on a new thread
//     (the calling thread waits for it);
//   allocateOnThreadPool(mr, nbytes) -> Promise<[status, message]>: the same on libuv's pool.
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

}  // namespace

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
