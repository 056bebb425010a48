// The outstanding allocations of one shard of a TrackingResourceAdaptor: pointer -> record, in
// an open-addressing table (linear probing, backward-shift deletion), so that tracking an
// allocation allocates nothing but the occasional rehash. Not thread-safe: the caller locks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "call_stack.h"

namespace rmmjs {

struct AllocationRecord {
  size_t bytes = 0;
  std::shared_ptr<const CallStack> stack;  // null unless the adaptor captures stacks
};

class AllocationTable {
 public:
  // False, and no change, when ptr is already in the table. ptr is never 0.
  bool Insert(uintptr_t ptr, AllocationRecord&& record) {
    if ((count_ + 1) * 2 > slots_.size()) Grow();
    size_t i = Home(ptr);
    for (; slots_[i].ptr != 0; i = Next(i)) {
      if (slots_[i].ptr == ptr) return false;
    }
    slots_[i].ptr = ptr;
    slots_[i].record = std::move(record);
    count_++;
    return true;
  }

  // Moves ptr's record to *out and removes it; false when ptr is not in the table.
  bool Take(uintptr_t ptr, AllocationRecord* out) {
    if (count_ == 0) return false;
    size_t i = Home(ptr);
    for (; slots_[i].ptr != ptr; i = Next(i)) {
      if (slots_[i].ptr == 0) return false;
    }
    *out = std::move(slots_[i].record);
    // Backward shift: move later entries of the probe run into the hole when that keeps them
    // reachable from their home slot, so lookups never need tombstones.
    for (size_t j = Next(i); slots_[j].ptr != 0; j = Next(j)) {
      size_t home = Home(slots_[j].ptr);
      if (((j - home) & Mask()) >= ((j - i) & Mask())) {
        slots_[i] = std::move(slots_[j]);
        i = j;
      }
    }
    slots_[i].ptr = 0;
    slots_[i].record = AllocationRecord{};
    count_--;
    return true;
  }

  size_t size() const { return count_; }

  template <class Visit>
  void ForEach(Visit&& visit) const {
    for (const Slot& slot : slots_) {
      if (slot.ptr != 0) visit(slot.ptr, slot.record);
    }
  }

 private:
  struct Slot {
    uintptr_t ptr = 0;  // 0: empty
    AllocationRecord record;
  };

  size_t Mask() const { return slots_.size() - 1; }
  size_t Next(size_t i) const { return (i + 1) & Mask(); }
  // Fibonacci hashing: the top bits of the product depend on every bit of the pointer.
  size_t Home(uintptr_t ptr) const { return static_cast<size_t>((ptr * 0x9E3779B97F4A7C15ull) >> shift_); }

  void Grow() {
    std::vector<Slot> old(slots_.empty() ? 16 : slots_.size() * 2);
    old.swap(slots_);
    shift_ = 64;
    for (size_t n = slots_.size(); n > 1; n >>= 1) shift_--;
    count_ = 0;
    for (Slot& slot : old) {
      if (slot.ptr != 0) Insert(slot.ptr, std::move(slot.record));
    }
  }

  std::vector<Slot> slots_;
  unsigned shift_ = 64;
  size_t count_ = 0;
};

}  // namespace rmmjs
