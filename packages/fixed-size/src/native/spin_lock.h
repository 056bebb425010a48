// A test-and-test-and-set lock for critical sections of a few dozen instructions (the free
// lists): uncontended it costs one atomic exchange and one store, where std::mutex costs two
// atomic read-modify-writes. Waiters spin briefly, then yield the CPU.
#pragma once

#include <atomic>
#include <thread>

namespace rmmjs {

class SpinLock {
 public:
  void lock() {
    for (int spins = 0; locked_.exchange(true, std::memory_order_acquire); spins++) {
      while (locked_.load(std::memory_order_relaxed)) {
        if (++spins > 64) std::this_thread::yield();
      }
    }
  }
  void unlock() { locked_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> locked_{false};
};

}  // namespace rmmjs
