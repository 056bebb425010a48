#include "parallel_for.h"

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace rmmjs {
namespace {

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
      generation_++;
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
      wake_.wait(lock, [&] { return generation_ != seen && job_ != nullptr && next_ < count_; });
      while (job_ != nullptr && next_ < count_) {
        int index = next_++;
        lock.unlock();
        Execute(index);
        lock.lock();
      }
      seen = generation_;
    }
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
  uint64_t generation_ = 0;
};

}  // namespace

void ParallelFor(int count, const std::function<void(int)>& fn) {
  if (count <= 1) {
    if (count == 1) fn(0);
    return;
  }
  ThreadPool::Instance().Run(count, fn);
}

}  // namespace rmmjs
