#include "copies/parallel_for.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "rmmjs/spin_lock.hpp"

namespace rmmjs {
namespace {

using Clock = std::chrono::steady_clock;

// How long a thread spins after its last job at most, whatever keeps the pool awake.
constexpr auto kLongestSpin = std::chrono::milliseconds(20);

class ThreadPool {
 public:
  // Never destroyed: its threads wait forever and are ended with the process.
  static ThreadPool& Instance() {
    static ThreadPool* pool = new ThreadPool();
    return *pool;
  }

  void Run(int count, const std::function<void(int)>& fn) {
    std::unique_lock<std::mutex> run_lock(run_mutex_);  // one parallel job at a time
    Grow(count - 1);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = &fn;
      next_ = 0;
      count_ = count;
      pending_ = count;
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    // The caller runs indices too: index 0 at least, and all of them when no thread could be started.
    std::unique_lock<std::mutex> lock(mutex_);
    while (next_ < count_) {
      int index = next_++;
      lock.unlock();
      Execute(index);
      lock.lock();
    }
    done_.wait(lock, [&] { return pending_ == 0; });
    job_ = nullptr;
  }

  // ParallelForAwake: the threads spin between jobs while held, and until `linger` after the last
  // release (the latest such time wins).
  void HoldAwake() { awake_holders_.fetch_add(1, std::memory_order_relaxed); }
  void ReleaseAwake(Clock::duration linger) {
    const Clock::rep until = (Clock::now() + linger).time_since_epoch().count();
    Clock::rep current = awake_until_.load(std::memory_order_relaxed);
    while (current < until && !awake_until_.compare_exchange_weak(current, until, std::memory_order_relaxed)) {
    }
    awake_holders_.fetch_sub(1, std::memory_order_release);  // after the time a spinner then reads
  }

 private:
  // Up to `wanted` threads; fewer when the system cannot start more (the caller then runs more of
  // the indices itself). Called without mutex_ held, before a job is published.
  void Grow(int wanted) {
    std::lock_guard<std::mutex> lock(mutex_);
    while (static_cast<int>(threads_.size()) < wanted) {
      try {
        threads_.emplace_back([this] { Work(); });
      } catch (...) {  // std::system_error (no more threads) or std::bad_alloc
        return;
      }
      threads_.back().detach();
    }
  }

  void Work() {
    uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return generation_.load(std::memory_order_relaxed) != seen; });
      seen = generation_.load(std::memory_order_relaxed);
      // Its indices may all be taken already: the thread then waits for the next job all the same.
      while (job_ != nullptr && next_ < count_) {
        int index = next_++;
        lock.unlock();
        Execute(index);
        lock.lock();
      }
      SpinWhileAwake(seen, lock);
    }
  }

  bool Awake(Clock::time_point now) const {
    return awake_holders_.load(std::memory_order_acquire) > 0 ||
           now.time_since_epoch().count() < awake_until_.load(std::memory_order_relaxed);
  }

  // Before sleeping until the next job: while the pool is kept awake, waits for it spinning.
  void SpinWhileAwake(uint64_t seen, std::unique_lock<std::mutex>& lock) {
    Clock::time_point now = Clock::now();
    if (!Awake(now)) return;
    const Clock::time_point give_up = now + kLongestSpin;
    lock.unlock();
    for (unsigned spins = 1; generation_.load(std::memory_order_acquire) == seen; spins++) {
      CpuRelax();
      if (spins % 64 == 0) {
        now = Clock::now();
        if (now >= give_up || !Awake(now)) break;
      }
    }
    lock.lock();
  }

  void Execute(int index) {
    (*job_)(index);
    std::lock_guard<std::mutex> lock(mutex_);
    if (--pending_ == 0) done_.notify_all();
  }

  std::mutex run_mutex_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  std::vector<std::thread> threads_;
  const std::function<void(int)>* job_ = nullptr;
  int next_ = 0;
  int count_ = 0;
  int pending_ = 0;
  // Changed under mutex_; atomic for the threads spinning without it.
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> awake_holders_{0};
  std::atomic<Clock::rep> awake_until_{0};
};

}  // namespace

ParallelForAwake::ParallelForAwake(std::chrono::microseconds linger) : linger_(linger) {
  ThreadPool::Instance().HoldAwake();
}

ParallelForAwake::~ParallelForAwake() { ThreadPool::Instance().ReleaseAwake(linger_); }

void ParallelFor(int count, const std::function<void(int)>& fn) {
  if (count <= 1) {
    if (count == 1) fn(0);
    return;
  }
  ThreadPool::Instance().Run(count, fn);
}

}  // namespace rmmjs
