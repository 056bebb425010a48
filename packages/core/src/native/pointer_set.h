// A set of pointers for membership checks on hot paths: open addressing with linear probing
// (no allocation per insert), split into shards that each have a lock.
#pragma once

#include <cstdint>
#include <mutex>
#include <vector>

namespace rmmjs {

class PointerSet {
 public:
  void Insert(const void* ptr) {
    Shard& shard = ShardOf(ptr);
    std::lock_guard<std::mutex> lock(shard.mutex);
    shard.Insert(reinterpret_cast<uintptr_t>(ptr));
  }
  // False when ptr was not in the set.
  bool Erase(const void* ptr) {
    Shard& shard = ShardOf(ptr);
    std::lock_guard<std::mutex> lock(shard.mutex);
    return shard.Erase(reinterpret_cast<uintptr_t>(ptr));
  }

 private:
  static constexpr uintptr_t kEmpty = 0;
  static constexpr uintptr_t kErased = 1;  // a tombstone; real pointers are aligned
  static constexpr size_t kShards = 16;

  struct Shard {
    std::mutex mutex;
    std::vector<uintptr_t> slots = std::vector<uintptr_t>(64, kEmpty);
    size_t used = 0;  // live entries and tombstones

    size_t Home(uintptr_t key) const { return (key * 0x9E3779B97F4A7C15ull >> 20) & (slots.size() - 1); }

    void Insert(uintptr_t key) {
      if ((used + 1) * 2 > slots.size()) Rehash();
      size_t i = Home(key);
      while (slots[i] > kErased) i = (i + 1) & (slots.size() - 1);
      if (slots[i] == kEmpty) used++;
      slots[i] = key;
    }

    bool Erase(uintptr_t key) {
      for (size_t i = Home(key);; i = (i + 1) & (slots.size() - 1)) {
        if (slots[i] == key) {
          slots[i] = kErased;
          return true;
        }
        if (slots[i] == kEmpty) return false;
      }
    }

    void Rehash() {
      std::vector<uintptr_t> old;
      old.swap(slots);
      size_t live = 0;
      for (uintptr_t key : old) live += key > kErased;
      size_t size = 64;
      while (size < live * 4) size *= 2;
      slots.assign(size, kEmpty);
      used = 0;
      for (uintptr_t key : old) {
        if (key > kErased) Insert(key);
      }
    }
  };

  Shard& ShardOf(const void* ptr) {
    return shards_[(reinterpret_cast<uintptr_t>(ptr) >> 8) % kShards];
  }
  Shard shards_[kShards];
};

}  // namespace rmmjs
