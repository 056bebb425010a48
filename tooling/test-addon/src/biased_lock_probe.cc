// biasedLockRun({ threads, iterations }) -> { total, expected, overlaps, biasedAlone, biasedAfter,
// barrier }:
// core's BiasedLock guarding a plain counter. The calling thread takes it `iterations` times alone
// (it stays biased), then again while `threads` native threads take it as many times each (the
// first of them revokes the bias). Every section increments the counter without an atomic and
// checks that it is alone inside: a lost increment or an overlap means the lock let two in. The
// sections take the lock in turn with lock(), with try_lock first, and with BiasedLock::Guard.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "methods.h"
#include "rmmjs/addon.hpp"
#include "rmmjs/biased_lock.hpp"

namespace rmmjs::test_addon {
namespace {

struct Guarded {
  BiasedLock lock;
  uint64_t total = 0;  // plain on purpose: only the lock orders it
  int inside = 0;
  uint64_t overlaps = 0;

  // Section i takes the lock the (i % 3)th way: lock(); try_lock, waiting only when that fails, as
  // the pool's lists do; a Guard.
  void Section(int64_t i) {
    if (i % 3 == 2) {
      BiasedLock::Guard guard(lock);
      return Count();
    }
    std::unique_lock<BiasedLock> guard(lock, std::defer_lock);
    if (i % 3 == 0 || !guard.try_lock()) guard.lock();
    Count();
  }

  void Count() {
    if (inside++ != 0) overlaps++;
    // A read-modify-write spread over a few instructions, so that two threads inside would lose one.
    uint64_t value = total;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    total = value + 1;
    inside--;
  }
};

}  // namespace

Napi::Value BiasedLockRun(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object options = info[0].As<Napi::Object>();
  int threads = options.Get("threads").As<Napi::Number>().Int32Value();
  int64_t iterations = options.Get("iterations").As<Napi::Number>().Int64Value();
  if (threads < 0 || threads > 64 || iterations < 0) js::ThrowTypeError(env, "threads 0 to 64, iterations >= 0");
  auto guarded = std::make_unique<Guarded>();
  for (int64_t i = 0; i < iterations; i++) guarded->Section(i);
  bool biased_alone = guarded->lock.biased();
  std::atomic<bool> go{false};
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; t++) {
    workers.emplace_back([&] {
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      for (int64_t i = 0; i < iterations; i++) guarded->Section(i);
    });
  }
  go.store(true, std::memory_order_release);
  for (int64_t i = 0; i < iterations; i++) guarded->Section(i);
  for (std::thread& worker : workers) worker.join();
  Napi::Object result = Napi::Object::New(env);
  result.Set("total", Napi::Number::New(env, static_cast<double>(guarded->total)));
  result.Set("expected", Napi::Number::New(env, static_cast<double>(iterations * (threads + 2))));
  result.Set("overlaps", Napi::Number::New(env, static_cast<double>(guarded->overlaps)));
  result.Set("biasedAlone", Napi::Boolean::New(env, biased_alone));
  result.Set("biasedAfter", Napi::Boolean::New(env, guarded->lock.biased()));
  result.Set("barrier", Napi::Boolean::New(env, detail::ProcessBarrierAvailable()));
  return result;
}

}  // namespace rmmjs::test_addon
