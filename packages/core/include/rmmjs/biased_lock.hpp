// A lock that the one thread which uses it takes without an atomic read-modify-write, for
// counters that a single JavaScript thread updates on every allocation (the statistics adaptor):
// there, SpinLock's exchange is most of what the adaptor adds to a pair.
//
// The first thread to take the lock becomes its owner. The owner marks itself inside with a plain
// store and enters unless the bias was revoked. The first other thread to take the lock revokes
// the bias for good: it sets `revoked_`, makes every thread of the process execute a full memory
// barrier (Linux membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED), waits for the owner to leave, and
// from then on every thread, the owner too, takes the SpinLock. The barrier is what makes the
// owner's store-then-load safe without a fence of its own (an asymmetric Dekker handshake): either
// the owner's "inside" is visible to the revoker after the barrier, or the owner's later load sees
// `revoked_`. Where the process barrier is not available (not Linux, or the kernel refuses), the
// lock is never biased and is a SpinLock with one more load.
//
// Meets the Lockable requirements (std::lock_guard, std::unique_lock). Not reentrant, and released
// on the thread that took it (both as with std::mutex: here a mistake would not deadlock but let
// two threads in).
#ifndef RMMJS_BIASED_LOCK_HPP
#define RMMJS_BIASED_LOCK_HPP

#include <pthread.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "rmmjs/spin_lock.hpp"

#if defined(__linux__)
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace rmmjs {
namespace detail {

#if defined(__linux__)
inline long Membarrier(int command) { return syscall(SYS_membarrier, command, 0, 0); }

// Registers the process for expedited private barriers, once: whether ProcessBarrier() works.
inline bool ProcessBarrierAvailable() {
  static const bool available = Membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0;
  return available;
}

// Every running thread of this process executes a full memory barrier before this returns.
// A child of fork() starts unregistered: it registers and tries again.
inline bool ProcessBarrier() {
  if (Membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0) return true;
  return Membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0 &&
         Membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0;
}
#else
inline bool ProcessBarrierAvailable() { return false; }
inline bool ProcessBarrier() { return false; }
#endif

}  // namespace detail

class BiasedLock {
 public:
  BiasedLock() {
    if (!detail::ProcessBarrierAvailable()) {
      owner_.store(kNobodyEver, std::memory_order_relaxed);
      unbiased_.store(true, std::memory_order_relaxed);
    }
  }
  BiasedLock(const BiasedLock&) = delete;
  BiasedLock& operator=(const BiasedLock&) = delete;

  void lock() {
    if (!EnterBiased()) LockUnbiased();
  }

  // Locks, and says whether another thread held the lock meanwhile (so that the caller had to
  // wait): what a try_lock-then-lock would tell, without try_lock's failures while biased.
  bool lock_and_tell_if_waited() {
    if (EnterBiased()) return false;
    bool waited = !spin_.try_lock();
    if (waited) spin_.lock();
    if (!unbiased_.load(std::memory_order_relaxed)) waited = Revoke() || waited;
    return waited;
  }

  // May fail while the lock is free, as std::mutex::try_lock may: a thread other than the owner
  // fails until some lock() has revoked the bias (so never retry it in a loop).
  bool try_lock() {
    if (EnterBiased()) return true;
    if (!unbiased_.load(std::memory_order_acquire)) return false;
    return spin_.try_lock();
  }

  void unlock() {
    if (inside_.load(std::memory_order_relaxed) && owner_.load(std::memory_order_relaxed) == Self()) {
      inside_.store(false, std::memory_order_release);
      return;
    }
    spin_.unlock();
  }

  // Whether the owner still takes the lock without an atomic (for tests).
  bool biased() const { return !unbiased_.load(std::memory_order_acquire); }

  // A scope's lock that remembers how it entered, so that leaving needs no check of who it is
  // (unlock() reads the owner and the thread's id): what the hot paths hold.
  class Guard {
   public:
    [[gnu::always_inline]] explicit Guard(BiasedLock& lock) : lock_(lock), biased_(lock.EnterBiased()) {
      if (!biased_) lock_.LockUnbiased();
    }
    ~Guard() {
      if (biased_) {
        lock_.inside_.store(false, std::memory_order_release);
      } else {
        lock_.spin_.unlock();
      }
    }
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;

   private:
    BiasedLock& lock_;
    const bool biased_;
  };

 private:
  static constexpr uintptr_t kNobodyYet = 0;
  static constexpr uintptr_t kNobodyEver = 1;  // no pthread_t is 1: the lock is never biased

  // pthread_t is an integer (glibc) or a pointer (musl, macOS).
  static uintptr_t Self() {
    pthread_t self = pthread_self();
    uintptr_t id = 0;
    std::memcpy(&id, &self, sizeof(self) < sizeof(id) ? sizeof(self) : sizeof(id));
    return id;
  }

  // The way in of every thread that did not enter biased.
  void LockUnbiased() {
    spin_.lock();
    if (!unbiased_.load(std::memory_order_relaxed)) Revoke();
  }

  // The owner's way in (the first thread to get here becomes the owner): true when it entered.
  bool EnterBiased() {
    const uintptr_t self = Self();
    uintptr_t owner = owner_.load(std::memory_order_relaxed);
    if (owner == kNobodyYet && owner_.compare_exchange_strong(owner, self, std::memory_order_relaxed)) owner = self;
    if (owner != self || revoked_.load(std::memory_order_relaxed)) return false;
    inside_.store(true, std::memory_order_relaxed);
    // Orders only the compiler; the revoker's process barrier orders the CPU (see above).
    std::atomic_signal_fence(std::memory_order_seq_cst);
    if (!revoked_.load(std::memory_order_relaxed)) return true;
    inside_.store(false, std::memory_order_release);
    return false;
  }

  // Under spin_, by the first thread other than the owner (the owner itself never revokes).
  // Returns whether the owner was inside (so that this thread waited for it).
  bool Revoke() {
    revoked_.store(true, std::memory_order_seq_cst);
    // Without the barrier the owner's "inside" may not be visible yet, and two threads would be
    // inside: a barrier that keeps failing after registration succeeded (the kernel out of
    // memory, say) stops the process rather than let that happen.
    for (int attempt = 0; !detail::ProcessBarrier(); attempt++) {
      if (attempt == 1000) {
        std::fputs("rmmjs: BiasedLock: membarrier keeps failing; stopping rather than corrupting memory\n", stderr);
        std::abort();
      }
      std::this_thread::yield();
    }
    bool waited = false;
    for (int spins = 0; inside_.load(std::memory_order_acquire); spins++) {
      waited = true;
      if (spins < 64) {
        CpuRelax();
      } else {
        std::this_thread::yield();
      }
    }
    unbiased_.store(true, std::memory_order_release);
    return waited;
  }

  std::atomic<uintptr_t> owner_{kNobodyYet};
  std::atomic<bool> inside_{false};    // the owner is in its biased critical section
  std::atomic<bool> revoked_{false};   // the owner may no longer enter without spin_
  std::atomic<bool> unbiased_{false};  // revocation finished: every thread uses spin_
  SpinLock spin_;
};

}  // namespace rmmjs

#endif  // RMMJS_BIASED_LOCK_HPP
