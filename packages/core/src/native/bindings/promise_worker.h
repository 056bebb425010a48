// Runs native work on libuv's thread pool and settles a promise on the JavaScript thread, so
// long copies and synchronisations do not block the event loop.
#pragma once

#include <napi.h>

#include <string>

#include "rmmjs/napi.hpp"
#include "runtime/driver.h"
#include "runtime/errors.h"
#include "runtime/logger.h"
#include "runtime/stream.h"

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

// Resolves once `event` (recorded by the caller) has completed. Owns the event: destroyed with the
// worker, on the JavaScript thread, on every path (settled or cancelled).
class EventSyncWorker : public PromiseWorker {
 public:
  EventSyncWorker(Napi::Env env, rmmjs_event event, int device) : PromiseWorker(env), event_(event), device_(device) {}
  ~EventSyncWorker() override {
    ContextScope scope(device_);
    if (EventDestroy(event_) != RMMJS_OK) Log(RMMJS_LOG_ERROR, std::string("Stream: ") + ErrorMessage());
  }

 protected:
  rmmjs_status Run() override {
    ContextScope scope(device_);
    RMMJS_TRY(scope.status());
    return EventSynchronize(event_);
  }

 private:
  rmmjs_event event_;
  int device_;
};

// A promise of the end of the work queued on `stream` so far (in `device`'s context). The wait runs
// on a thread of libuv's pool, where PER_THREAD_DEFAULT_STREAM names that thread's own stream, not
// this one's: for it an event recorded here, on this thread's stream, is what the pool's thread
// waits for.
inline Napi::Value SynchronizeAsync(Napi::Env env, StreamObject* stream, int device) {
  if (stream->handle() != kPerThreadStream || DriverApi() == nullptr) {
    return (new StreamSyncWorker(env, stream, device))->Start();
  }
  rmmjs_event event = nullptr;
  Napi::Value error;
  {
    ContextScope scope(device);
    rmmjs_status status = scope.status();
    if (status == RMMJS_OK) status = EventCreate(&event);
    if (status == RMMJS_OK) status = EventRecord(event, kPerThreadStream);
    if (status != RMMJS_OK) {
      error = js::StatusError(env, status);  // before EventDestroy sets an error of its own
      if (event != nullptr) EventDestroy(event);
    }
  }
  if (error.IsEmpty()) {
    EventSyncWorker* worker = nullptr;
    try {
      worker = new EventSyncWorker(env, event, device);  // owns the event once made
    } catch (...) {                                      // Node-API refuses its promise while the environment ends
      ContextScope scope(device);
      EventDestroy(event);
      throw;
    }
    return worker->Start();
  }
  Napi::Promise::Deferred rejected = Napi::Promise::Deferred::New(env);
  rejected.Reject(error);
  return rejected.Promise();
}

}  // namespace bind
}  // namespace rmmjs
