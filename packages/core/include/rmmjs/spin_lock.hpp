// A test-and-test-and-set lock for critical sections of a few dozen instructions (free lists,
// tables): uncontended, taking it is one atomic exchange and releasing it a plain store, where
// std::mutex pays a second atomic read-modify-write. A waiter spins briefly with the CPU's pause
// hint, then yields its time slice, so a holder that was preempted is not starved.
// Meets the Lockable requirements: use it with std::lock_guard / std::unique_lock.
#ifndef RMMJS_SPIN_LOCK_HPP
#define RMMJS_SPIN_LOCK_HPP

#include <atomic>
#include <thread>

namespace rmmjs {

// The CPU's hint that this thread is spinning (frees pipeline resources for a sibling hyperthread).
inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

class SpinLock {
 public:
  void lock() {
    while (locked_.exchange(true, std::memory_order_acquire)) {
      for (int spins = 0; locked_.load(std::memory_order_relaxed); spins++) {
        if (spins < kSpinsBeforeYield) {
          CpuRelax();
        } else {
          std::this_thread::yield();
        }
      }
    }
  }
  bool try_lock() {
    return !locked_.load(std::memory_order_relaxed) && !locked_.exchange(true, std::memory_order_acquire);
  }
  void unlock() { locked_.store(false, std::memory_order_release); }

 private:
  static constexpr int kSpinsBeforeYield = 64;
  std::atomic<bool> locked_{false};
};

}  // namespace rmmjs

#endif  // RMMJS_SPIN_LOCK_HPP
