// A test-and-test-and-set lock for the arenas. Each thread's arena is locked by its own thread
// almost always, so the lock is nearly never contended: taking it is one atomic exchange and
// releasing it a plain store (std::mutex pays a second atomic operation to release). Waiters spin
// briefly, then yield.
#pragma once

#include <atomic>
#include <thread>

namespace rmmjs::arena {

class SpinLock {
 public:
  void lock() {
    for (unsigned spins = 0; locked_.exchange(true, std::memory_order_acquire); spins++) {
      while (locked_.load(std::memory_order_relaxed)) {
        if (++spins > 64) {
          std::this_thread::yield();
        } else {
#if defined(__x86_64__) || defined(__i386__)
          __builtin_ia32_pause();
#endif
        }
      }
    }
  }
  void unlock() { locked_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> locked_{false};
};

}  // namespace rmmjs::arena
