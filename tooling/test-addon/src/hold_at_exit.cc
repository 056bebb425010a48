// librmmjs_hold_at_exit.so, preloaded (LD_PRELOAD) into a test's child process: holds a thread
// inside its exit, at the first shared lock it takes in the thread_local destructors that were
// there before it was armed (a resource's exit hook), so that a test can act on the resource
// meanwhile (thread_probe.cc's exitHeld).
// rmmjs_hold_at_exit(): arms the calling thread (thread_local destructors run in reverse order of
// construction: this one, constructed last, runs first and arms the hold for the others).
// rmmjs_hold_wait(ms): waits until a thread is held; 1 when one is, 0 after ms.
// rmmjs_hold_release(): lets the held thread go on (after 10 s it goes on by itself).
#include <dlfcn.h>
#include <pthread.h>

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace {

using RdlockFn = int (*)(pthread_rwlock_t*);

std::mutex g_mutex;
std::condition_variable g_changed;
bool g_held = false;
bool g_released = false;

thread_local bool t_armed = false;  // trivially destructible: still readable during the exit

struct Arm {
  ~Arm() { t_armed = true; }
};

void Hold() {
  std::unique_lock<std::mutex> lock(g_mutex);
  g_held = true;
  g_changed.notify_all();
  g_changed.wait_for(lock, std::chrono::seconds(10), [] { return g_released; });
}

}  // namespace

extern "C" __attribute__((visibility("default"))) void rmmjs_hold_at_exit() {
  thread_local Arm arm;
  (void)arm;
}

extern "C" __attribute__((visibility("default"))) int rmmjs_hold_wait(long ms) {
  std::unique_lock<std::mutex> lock(g_mutex);
  return g_changed.wait_for(lock, std::chrono::milliseconds(ms), [] { return g_held; }) ? 1 : 0;
}

extern "C" __attribute__((visibility("default"))) void rmmjs_hold_release() {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_released = true;
  g_changed.notify_all();
}

extern "C" __attribute__((visibility("default"))) int pthread_rwlock_rdlock(pthread_rwlock_t* rwlock) {
  static const auto next = reinterpret_cast<RdlockFn>(dlsym(RTLD_NEXT, "pthread_rwlock_rdlock"));
  if (t_armed) {
    t_armed = false;
    Hold();
  }
  return next(rwlock);
}
