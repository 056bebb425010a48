// A test-and-test-and-set spin lock for critical sections of a few nanoseconds (a table insert
// or removal): unlocking is a plain store, where std::mutex costs a second atomic
// read-modify-write. A waiter yields its time slice after a short spin, so a holder that was
// preempted is not starved.
#pragma once

#include <atomic>
#include <thread>

namespace rmmjs {

class SpinLock {
 public:
  void lock() {
    while (locked_.exchange(true, std::memory_order_acquire)) {
      for (int spins = 0; locked_.load(std::memory_order_relaxed); spins++) {
        if (spins < 64) {
          CpuRelax();
        } else {
          std::this_thread::yield();
        }
      }
    }
  }
  void unlock() { locked_.store(false, std::memory_order_release); }

 private:
  static void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
  }

  std::atomic<bool> locked_{false};
};

}  // namespace rmmjs
