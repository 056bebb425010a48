// A small fixed pool of threads that runs fn(0..count-1) in parallel, the caller taking part.
#pragma once

#include <chrono>
#include <functional>

namespace rmmjs {

// Runs fn(i) for every i in [0, count) on up to `count` threads (the calling thread included)
// and returns when all have finished. Where the system cannot start enough threads, the calling
// thread runs the indices left over.
void ParallelFor(int count, const std::function<void(int)>& fn);

// While one lives, and for `linger` after the last one ends, the pool's threads wait for the next
// job spinning instead of sleeping (never longer than 20 ms after the last job). For jobs that come
// back to back, such as large copies in a loop: a sleeping thread can take from 10 to 500 µs to
// wake (a virtual CPU the hypervisor halted), which a job of a few milliseconds loses at its start.
class ParallelForAwake {
 public:
  explicit ParallelForAwake(std::chrono::microseconds linger);
  ~ParallelForAwake();
  ParallelForAwake(const ParallelForAwake&) = delete;
  ParallelForAwake& operator=(const ParallelForAwake&) = delete;

 private:
  std::chrono::microseconds linger_;
};

}  // namespace rmmjs
