// Runs native work on libuv's thread pool and settles a promise on the JavaScript thread, so
// long copies and synchronisations do not block the event loop.
#pragma once

#include <napi.h>

#include <string>

#include "errors.h"
#include "rmmjs/napi.hpp"
#include "stream.h"

namespace rmmjs {
namespace bind {

class PromiseWorker : public Napi::AsyncWorker {
 public:
  explicit PromiseWorker(Napi::Env env)
      : Napi::AsyncWorker(env, "rmmjs"), deferred_(Napi::Promise::Deferred::New(env)) {}

  Napi::Promise Start() {
    Napi::Promise promise = deferred_.Promise();
    Queue();
    return promise;
  }

 protected:
  virtual rmmjs_status Run() = 0;                                        // worker thread
  virtual Napi::Value Result(Napi::Env env) { return env.Undefined(); }  // JS thread
  virtual void Finish() {}                                               // JS thread, success or failure

 private:
  void Execute() override {
    status_ = Run();
    if (status_ != RMMJS_OK) {
      message_ = ErrorMessage();
      cuda_code_ = ErrorCudaCode();
    }
  }
  void OnOK() override {
    Napi::Env env = Env();
    Finish();
    if (status_ == RMMJS_OK) {
      deferred_.Resolve(Result(env));
    } else {
      deferred_.Reject(js::MakeError(env, status_, message_, cuda_code_));
    }
  }
  void OnError(const Napi::Error& error) override {
    Finish();
    deferred_.Reject(error.Value());
  }

  Napi::Promise::Deferred deferred_;
  rmmjs_status status_ = RMMJS_OK;
  std::string message_;
  int cuda_code_ = 0;
};

// Resolves once the work queued on `stream` so far has finished, waiting in `device`'s context on
// a thread of the pool (the stream stays alive until then).
class StreamSyncWorker : public PromiseWorker {
 public:
  StreamSyncWorker(Napi::Env env, StreamObject* stream, int device)
      : PromiseWorker(env), stream_(stream), device_(device) {
    stream_->Retain();
  }

 protected:
  rmmjs_status Run() override { return StreamSynchronizeOnDevice(stream_->handle(), device_); }
  void Finish() override { stream_->Release(); }

 private:
  StreamObject* stream_;
  int device_;
};

}  // namespace bind
}  // namespace rmmjs
