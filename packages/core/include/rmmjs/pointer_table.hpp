// Tables keyed by pointer, for resources that remember what they handed out (to refuse a double
// or foreign free instead of corrupting memory or a counter).
//
// PointerTable<Value>: open addressing with linear probing and backward-shift deletion, so there
// are no tombstones and every key but 0 (which no allocation has) is a valid pointer. Inserting
// allocates only when the table grows (and may then throw std::bad_alloc). Not thread-safe.
//
// ShardedPointerTable<Value, WeightOf>: PointerTable split into shards, each behind a spin lock, for
// a table that allocate and deallocate touch from any thread (a lookup holds one shard for a few
// dozen instructions), optionally summing a weight of its entries. Readers that want one
// consistent view (ForEach) hold every shard at once.
#ifndef RMMJS_POINTER_TABLE_HPP
#define RMMJS_POINTER_TABLE_HPP

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include "rmmjs/biased_lock.hpp"

namespace rmmjs {

// Storage on whole cache lines of its own: two tables that two threads write side by side, the
// shards below, would otherwise share a line between their slots and slow each other down.
template <class T>
struct CacheLineAllocator {
  using value_type = T;
  static constexpr std::align_val_t kAlignment{64};
  CacheLineAllocator() = default;
  template <class U>
  CacheLineAllocator(const CacheLineAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    if (n > (SIZE_MAX - 63) / sizeof(T)) throw std::bad_alloc();
    return static_cast<T*>(::operator new((n * sizeof(T) + 63) / 64 * 64, kAlignment));
  }
  void deallocate(T* p, std::size_t) noexcept { ::operator delete(p, kAlignment); }
  template <class U>
  bool operator==(const CacheLineAllocator<U>&) const noexcept {
    return true;
  }
  template <class U>
  bool operator!=(const CacheLineAllocator<U>&) const noexcept {
    return false;
  }
};

template <class Value>
class PointerTable {
 public:
  // False, and no change, when ptr is 0 or already in the table.
  bool Insert(std::uintptr_t ptr, Value value) {
    if (ptr == 0) return false;
    if ((count_ + 1) * 2 > slots_.size()) Grow();
    std::size_t i = Home(ptr);
    for (; slots_[i].ptr != 0; i = Next(i)) {
      if (slots_[i].ptr == ptr) return false;
    }
    slots_[i].ptr = ptr;
    slots_[i].value = std::move(value);
    count_++;
    return true;
  }

  // Moves ptr's value to *out and removes it; false when ptr is not in the table.
  bool Take(std::uintptr_t ptr, Value* out) {
    if (count_ == 0 || ptr == 0) return false;
    std::size_t i = Home(ptr);
    for (; slots_[i].ptr != ptr; i = Next(i)) {
      if (slots_[i].ptr == 0) return false;
    }
    *out = std::move(slots_[i].value);
    // Backward shift: move later entries of the probe run into the hole when that keeps them
    // reachable from their home slot, so lookups never need tombstones.
    for (std::size_t j = Next(i); slots_[j].ptr != 0; j = Next(j)) {
      std::size_t home = Home(slots_[j].ptr);
      if (((j - home) & Mask()) >= ((j - i) & Mask())) {
        slots_[i] = std::move(slots_[j]);
        i = j;
      }
    }
    slots_[i].ptr = 0;
    slots_[i].value = Value{};
    count_--;
    return true;
  }

  std::size_t size() const { return count_; }

  // How many slots a lookup of ptr reads before it finds ptr (1 in its home slot), or 0 when
  // ptr is not in the table: for tests of the hash's spread.
  std::size_t ProbeLength(std::uintptr_t ptr) const {
    if (count_ == 0 || ptr == 0) return 0;
    std::size_t length = 1;
    for (std::size_t i = Home(ptr); slots_[i].ptr != ptr; i = Next(i), length++) {
      if (slots_[i].ptr == 0) return 0;
    }
    return length;
  }

  // Whether the slots take whole cache lines of their own (or there are none yet): for tests. They
  // start on a line, and CacheLineAllocator rounds their storage up to whole lines.
  bool SlotsOnOwnLines() const { return reinterpret_cast<std::uintptr_t>(slots_.data()) % 64 == 0; }

  template <class Visit>
  void ForEach(Visit&& visit) const {
    for (const Slot& slot : slots_) {
      if (slot.ptr != 0) visit(slot.ptr, slot.value);
    }
  }

 private:
  struct Slot {
    std::uintptr_t ptr = 0;  // 0: empty
    Value value{};
  };

  std::size_t Mask() const { return slots_.size() - 1; }
  std::size_t Next(std::size_t i) const { return (i + 1) & Mask(); }
  // Fibonacci hashing: the top bits of the product depend on every bit of the pointer.
  std::size_t Home(std::uintptr_t ptr) const {
    return static_cast<std::size_t>((static_cast<std::uint64_t>(ptr) * 0x9E3779B97F4A7C15ull) >> shift_);
  }

  void Grow() {
    std::vector<Slot, CacheLineAllocator<Slot>> old(slots_.empty() ? 16 : slots_.size() * 2);
    old.swap(slots_);
    shift_ = 64;
    for (std::size_t n = slots_.size(); n > 1; n >>= 1) shift_--;
    count_ = 0;
    for (Slot& slot : old) {
      if (slot.ptr != 0) Insert(slot.ptr, std::move(slot.value));
    }
  }

  std::vector<Slot, CacheLineAllocator<Slot>> slots_;
  unsigned shift_ = 64;
  std::size_t count_ = 0;
};

// The weight of no entry: a table that sums nothing.
struct NoWeight {
  template <class Value>
  constexpr std::size_t operator()(const Value&) const {
    return 0;
  }
};

template <class Value, class WeightOf = NoWeight>
class ShardedPointerTable {
 public:
  // False, and no change, when ptr is null or already in the table. May throw std::bad_alloc.
  bool Insert(const void* ptr, Value value) {
    Shard& shard = ShardOf(ptr);
    const std::size_t weight = WeightOf{}(value);
    BiasedLock::Guard guard(shard.lock);
    if (!shard.table.Insert(Key(ptr), std::move(value))) return false;
    shard.AddWeight(weight);
    return true;
  }
  // Moves ptr's value to *out and removes it; false when ptr is not in the table.
  bool Take(const void* ptr, Value* out) {
    Shard& shard = ShardOf(ptr);
    BiasedLock::Guard guard(shard.lock);
    if (!shard.table.Take(Key(ptr), out)) return false;
    shard.AddWeight(0 - WeightOf{}(*out));
    return true;
  }

  // The sum of WeightOf over the entries, without a lock (as a relaxed atomic counter reads: each
  // shard's sum is exact, a call that runs at the same time may be counted or not). Insert and
  // Take keep each shard's sum under its lock, so a total (the bytes of the allocations, say)
  // costs the table's users no atomic read-modify-write on every call.
  std::size_t total_weight() const {
    std::size_t total = 0;
    for (const Shard& shard : shards_) total += shard.weight.load(std::memory_order_relaxed);
    return total;
  }

  // The number of entries (the shards are counted one after another).
  std::size_t size() const {
    std::size_t total = 0;
    for (const Shard& shard : shards_) {
      BiasedLock::Guard guard(shard.lock);
      total += shard.table.size();
    }
    return total;
  }

  std::size_t ProbeLength(const void* ptr) const {
    const Shard& shard = ShardOf(ptr);
    BiasedLock::Guard guard(shard.lock);
    return shard.table.ProbeLength(Key(ptr));
  }

  // Whether every shard's slots take whole cache lines of their own: for tests.
  bool SlotsOnOwnLines() const {
    for (const Shard& shard : shards_) {
      BiasedLock::Guard guard(shard.lock);
      if (!shard.table.SlotsOnOwnLines()) return false;
    }
    return true;
  }

  // Calls visit(ptr, value) for every entry with all shards locked (in order): one consistent
  // snapshot. visit must not use the table, and should be short: it blocks every other user.
  template <class Visit>
  void ForEach(Visit&& visit) const {
    std::array<std::unique_lock<BiasedLock>, kShards> guards;
    for (std::size_t i = 0; i < kShards; i++) guards[i] = std::unique_lock<BiasedLock>(shards_[i].lock);
    for (const Shard& shard : shards_) shard.table.ForEach(visit);
  }

 private:
  // Two threads whose blocks fall in one shard meet on its lock at every allocation and free (half
  // the pair rate of one thread alone): 256 shards make that 1 chance in 256 for two blocks. The
  // cost: 16 KiB per table, and size() and ForEach take 256 locks (a thread other than a shard's
  // owner revokes its bias the first time, with a process-wide barrier).
  static constexpr unsigned kShardBits = 8;
  static constexpr std::size_t kShards = std::size_t{1} << kShardBits;
  struct alignas(64) Shard {
    // Biased: a shard that one thread alone uses (JavaScript's, most often) costs no atomic.
    mutable BiasedLock lock;
    PointerTable<Value> table;
    // WeightOf summed over table: written under lock (a plain load and store), read without it.
    std::atomic<std::size_t> weight{0};
    void AddWeight(std::size_t delta) {
      if constexpr (std::is_same_v<WeightOf, NoWeight>) return;
      weight.store(weight.load(std::memory_order_relaxed) + delta, std::memory_order_relaxed);
    }
  };

  static std::uintptr_t Key(const void* ptr) { return reinterpret_cast<std::uintptr_t>(ptr); }
  // A mixed hash picks the shard: the low bits above the 256-byte alignment would put blocks of
  // one size carved from one region (1 MiB apart, say) all in one shard, and threads that each
  // reuse their own block would then contend for its lock anyway. It must not be the top bits of
  // the product PointerTable hashes with: every key of a shard would then share the top bits of
  // its home slot, and only 1/kShards of the slots would be homes (long probe runs).
  static std::size_t ShardIndex(std::uintptr_t key) {
    std::uint64_t h = key;  // MurmurHash3's finalizer
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 33;
    h *= 0xC4CEB9FE1A85EC53ull;
    h ^= h >> 33;
    return static_cast<std::size_t>(h & (kShards - 1));
  }
  Shard& ShardOf(const void* ptr) { return shards_[ShardIndex(Key(ptr))]; }
  const Shard& ShardOf(const void* ptr) const { return shards_[ShardIndex(Key(ptr))]; }

  std::array<Shard, kShards> shards_;
};

}  // namespace rmmjs

#endif  // RMMJS_POINTER_TABLE_HPP
