// Per-thread caches of freed blocks in front of a resource's shared free lists, so that threads
// that free and allocate blocks of one size on one stream stop meeting on the shared lock (and on
// the cache lines of the shared lists).
//
// Each thread that uses a resource gets a small cache of its own (kCapacity blocks). A free puts
// the block there; an allocation of the same size on the same stream takes it back. The resource
// says which frees may be cached (those that need no driver call: a cached block is reused on its
// own stream only, at once, as RMM allows) and drains the caches into its shared lists when it
// needs every free block: before it grows or reports out of memory, and when it is destroyed.
// A thread that exits gives its caches back to resources that still exist (its thread_local
// destructor); a resource destroyed while threads still hold caches takes their blocks and leaves
// the threads empty, detached caches that they drop.
//
// Locks (never taken in the other order): the registry, then a cache; a cache, then the
// resource's own lock (a thread's exit hands its blocks back under its cache's lock, so that the
// resource cannot be destroyed meanwhile). The owner thread's hot path takes only its cache's lock,
// which no other thread touches then: biased to that thread, it costs no atomic until another
// thread drains the cache.
#ifndef RMMJS_THREAD_CACHE_HPP
#define RMMJS_THREAD_CACHE_HPP

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "rmmjs/abi.h"
#include "rmmjs/biased_lock.hpp"
#include "rmmjs/stream_key.hpp"

namespace rmmjs {

// A free block as a cache holds it: where, how large (as the resource counts it), the stream it
// was freed on, and the resource's record of it (its own business; it travels with the block).
struct CachedBlock {
  uintptr_t ptr;
  size_t size;
  StreamKey key;
  void* record;
};

class ThreadCaches {
 public:
  static constexpr size_t kCapacity = 8;
  // Gives blocks drained at a thread's exit back to the resource (owner), under its own lock.
  using ReturnFn = void (*)(void* owner, const CachedBlock* blocks, size_t count);

  ThreadCaches(void* owner, ReturnFn give_back) : id_(NextId()), owner_(owner), give_back_(give_back) {}
  ThreadCaches(const ThreadCaches&) = delete;
  ThreadCaches& operator=(const ThreadCaches&) = delete;

  // Takes a block of exactly `size` freed on `key` from the calling thread's cache into *out; false
  // when there is none.
  bool Take(size_t size, const StreamKey& key, CachedBlock* out) {
    Cache* cache = Find();  // none yet: nothing was freed here
    if (cache == nullptr) return false;
    BiasedLock::Guard guard(cache->lock);
    for (size_t i = cache->count; i-- > 0;) {  // the most recently freed first
      CachedBlock& block = cache->blocks[i];
      if (block.size == size && block.key == key) {
        *out = block;
        block = cache->blocks[--cache->count];
        return true;
      }
    }
    return false;
  }

  // Puts a freed block into the calling thread's cache; false when it is full (or cannot be made:
  // no host memory), and the block stays the caller's.
  bool Put(const CachedBlock& block) noexcept {
    Cache* cache = nullptr;
    try {
      cache = FindOrCreate();
    } catch (...) {
      return false;
    }
    if (cache == nullptr) return false;
    BiasedLock::Guard guard(cache->lock);
    if (cache->count == kCapacity) return false;
    cache->blocks[cache->count++] = block;
    return true;
  }

  // Empties every thread's cache: visit(const CachedBlock* blocks, size_t count) gets each one's
  // blocks under its lock (it may take the resource's lock; the caller must not hold it). Returns
  // how many blocks there were.
  template <class Visit>
  size_t DrainAll(Visit&& visit) {
    return Drain(visit, false);
  }

  // How many blocks the threads' caches hold now.
  size_t Count() {
    size_t count = 0;
    std::lock_guard<std::mutex> registry_guard(registry_lock_);
    for (const std::shared_ptr<Cache>& cache : registry_) {
      BiasedLock::Guard guard(cache->lock);
      if (cache->owner != nullptr) count += cache->count;
    }
    return count;
  }

  // At the resource's destruction: DrainAll, and every cache detached from the resource.
  template <class Visit>
  void DetachAll(Visit&& visit) {
    Drain(visit, true);
  }

 private:
  struct alignas(64) Cache {  // no cache line shared with another thread's cache
    BiasedLock lock;
    ThreadCaches* owner;  // nullptr once detached (the thread exited, or the resource is gone)
    std::atomic<bool> detached{false};
    size_t count = 0;
    CachedBlock blocks[kCapacity];
    explicit Cache(ThreadCaches* owner) : owner(owner) {}
  };

  // A thread's caches, one per resource it used, by the resource's id.
  struct Slot {
    uint64_t id;
    std::shared_ptr<Cache> cache;
  };
  struct ThreadSlots {
    std::vector<Slot> slots;
    Cache* last = nullptr;  // the cache of resource last_id, the common case
    uint64_t last_id = 0;
    ~ThreadSlots() {
      exiting = true;  // frees later in this thread's exit bypass the caches
      for (Slot& slot : slots) GiveBackAtExit(*slot.cache);
    }
  };
  // Trivially destructible, so it can still be read after ThreadSlots is gone.
  static inline thread_local bool exiting = false;

  static uint64_t NextId() {
    static std::atomic<uint64_t> next{1};
    return next.fetch_add(1, std::memory_order_relaxed);
  }
  static ThreadSlots& Slots() {
    thread_local ThreadSlots slots;
    return slots;
  }

  Cache* Find() {
    if (exiting) return nullptr;
    ThreadSlots& mine = Slots();
    if (mine.last_id == id_) return mine.last;
    for (Slot& slot : mine.slots) {
      if (slot.id == id_) {
        mine.last = slot.cache.get();
        mine.last_id = id_;
        return mine.last;
      }
    }
    return nullptr;
  }

  Cache* FindOrCreate() {
    if (exiting) return nullptr;
    if (Cache* cache = Find()) return cache;
    ThreadSlots& mine = Slots();
    std::vector<Slot>& slots = mine.slots;
    // Caches of resources destroyed since go first (ids are never reused, so none matches).
    DropDetached(slots, [](const Slot& slot) { return slot.cache.get(); });
    std::shared_ptr<Cache> cache(new Cache(this));  // over-aligned: operator new, not make_shared
    slots.reserve(slots.size() + 1);
    {
      std::lock_guard<std::mutex> guard(registry_lock_);
      DropDetached(registry_, [](const std::shared_ptr<Cache>& cache) { return cache.get(); });
      registry_.push_back(cache);
    }
    slots.push_back({id_, std::move(cache)});  // never allocates: reserved above
    mine.last = slots.back().cache.get();
    mine.last_id = id_;
    return mine.last;
  }

  // Drops the detached caches from a list that holds them (cache_of gives an item's cache).
  template <class Item, class CacheOf>
  static void DropDetached(std::vector<Item>& items, CacheOf cache_of) {
    for (size_t i = 0; i < items.size();) {
      if (cache_of(items[i])->detached.load(std::memory_order_acquire)) {
        items[i] = std::move(items.back());
        items.pop_back();
      } else {
        i++;
      }
    }
  }

  template <class Visit>
  size_t Drain(Visit& visit, bool detach) {
    size_t drained = 0;
    std::lock_guard<std::mutex> registry_guard(registry_lock_);
    for (const std::shared_ptr<Cache>& cache : registry_) {
      BiasedLock::Guard guard(cache->lock);
      if (cache->owner == nullptr) continue;
      if (cache->count != 0) visit(static_cast<const CachedBlock*>(cache->blocks), cache->count);
      drained += cache->count;
      cache->count = 0;
      if (detach) {
        cache->owner = nullptr;
        cache->detached.store(true, std::memory_order_release);
      }
    }
    if (detach) registry_.clear();
    return drained;
  }

  // The thread owning cache exits: its blocks go back to the resource, if it still exists.
  static void GiveBackAtExit(Cache& cache) {
    BiasedLock::Guard guard(cache.lock);
    ThreadCaches* owner = cache.owner;
    if (owner == nullptr) return;
    if (cache.count != 0) owner->give_back_(owner->owner_, cache.blocks, cache.count);
    cache.count = 0;
    cache.owner = nullptr;
    cache.detached.store(true, std::memory_order_release);
  }

  const uint64_t id_;  // never reused: a thread's cache of a destroyed resource matches no new one
  void* const owner_;
  const ReturnFn give_back_;
  std::mutex registry_lock_;
  std::vector<std::shared_ptr<Cache>> registry_;  // every thread's cache of this resource
};

}  // namespace rmmjs

#endif  // RMMJS_THREAD_CACHE_HPP
