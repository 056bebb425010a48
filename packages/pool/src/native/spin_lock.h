// A small lock for the pool's short critical sections: one atomic exchange to take, one store
// to release (std::mutex costs a second atomic operation on release). A waiter spins briefly,
// then yields its CPU, so a holder that was preempted is not starved.
#pragma once

#include <atomic>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define RMMJS_POOL_PAUSE() _mm_pause()
#elif defined(__aarch64__)
#define RMMJS_POOL_PAUSE() asm volatile("yield")
#else
#define RMMJS_POOL_PAUSE() ((void)0)
#endif

namespace rmmjs {
namespace pool {

class SpinLock {
 public:
  void lock() {
    while (locked_.exchange(true, std::memory_order_acquire)) {
      for (int spins = 0; locked_.load(std::memory_order_relaxed); spins++) {
        if (spins < 64) RMMJS_POOL_PAUSE();
        else std::this_thread::yield();
      }
    }
  }
  void unlock() { locked_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> locked_{false};
};

}  // namespace pool
}  // namespace rmmjs
