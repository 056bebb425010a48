// A sampling profiler of the calling thread, for bench profiles on machines without perf: a
// high-resolution timer sends SIGPROF to this thread only, and the handler records the
// interrupted instruction pointer. Stopping writes /proc/self/maps (with each mapped file's size,
// so that symbols are looked up only in an identical local copy) and the samples to a file.
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "methods.h"

namespace rmmjs::test_addon {
namespace {

constexpr size_t kCapacity = size_t{1} << 22;
uintptr_t* g_samples = nullptr;  // written only by the handler, on the sampled thread
std::atomic<size_t> g_count{0};
timer_t g_timer;
bool g_running = false;

void OnProfSignal(int, siginfo_t*, void* context) {
#if defined(__x86_64__)
  auto* uc = static_cast<ucontext_t*>(context);
  size_t index = g_count.load(std::memory_order_relaxed);
  if (index < kCapacity) {
    g_samples[index] = static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]);
    g_count.store(index + 1, std::memory_order_relaxed);
  }
#else
  (void)context;
#endif
}

}  // namespace

Napi::Value PcSamplerStart(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
#if !defined(__x86_64__) || !defined(__linux__)
  throw Napi::Error::New(env, "pcSamplerStart: Linux x86-64 only");
#else
  if (g_running) throw Napi::Error::New(env, "pcSamplerStart: already sampling");
  const int64_t interval_us = info[0].As<Napi::Number>().Int64Value();
  if (interval_us < 10 || interval_us > 1000000) throw Napi::RangeError::New(env, "intervalUs: 10 to 1000000");
  if (g_samples == nullptr) g_samples = new uintptr_t[kCapacity];
  g_count.store(0);
  struct sigaction action;
  std::memset(&action, 0, sizeof action);
  action.sa_sigaction = OnProfSignal;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(SIGPROF, &action, nullptr);
  struct sigevent event;
  std::memset(&event, 0, sizeof event);
  event.sigev_notify = SIGEV_THREAD_ID;
  event.sigev_signo = SIGPROF;
  event._sigev_un._tid = static_cast<pid_t>(syscall(SYS_gettid));
  if (timer_create(CLOCK_MONOTONIC, &event, &g_timer) != 0) throw Napi::Error::New(env, "timer_create failed");
  const long nanoseconds = static_cast<long>(interval_us * 1000);
  struct itimerspec spec = {{nanoseconds / 1000000000, nanoseconds % 1000000000},
                            {nanoseconds / 1000000000, nanoseconds % 1000000000}};
  timer_settime(g_timer, 0, &spec, nullptr);
  g_running = true;
  return env.Undefined();
#endif
}

Napi::Value PcSamplerStop(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!g_running) throw Napi::Error::New(env, "pcSamplerStop: not sampling");
#if defined(__x86_64__) && defined(__linux__)
  struct itimerspec off = {{0, 0}, {0, 0}};
  timer_settime(g_timer, 0, &off, nullptr);
  timer_delete(g_timer);
  signal(SIGPROF, SIG_IGN);  // a signal still in flight
#endif
  g_running = false;
  const std::string path = info[0].As<Napi::String>().Utf8Value();
  std::ofstream out(path);
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    size_t slash = line.find('/');
    long long size = -1;
    struct stat status;
    if (slash != std::string::npos && stat(line.c_str() + slash, &status) == 0) size = status.st_size;
    out << "map " << size << ' ' << line << '\n';
  }
  const size_t count = std::min(g_count.load(), kCapacity);
  char text[32];
  for (size_t i = 0; i < count; i++) {
    std::snprintf(text, sizeof text, "pc %lx\n", static_cast<unsigned long>(g_samples[i]));
    out << text;
  }
  if (!out) throw Napi::Error::New(env, "pcSamplerStop: cannot write " + path);
  return Napi::Number::New(env, static_cast<double>(count));
}

}  // namespace rmmjs::test_addon
