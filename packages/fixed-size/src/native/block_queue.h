// FixedSizeMemoryResource's FreeList (rmmjs/stream_ordered_policy.hpp): a FIFO of free blocks of
// one size, RMM's fixed_size_free_list (a std::list used as a queue) as a ring buffer, so that
// pushing and popping allocate nothing once it has grown to its working size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace rmmjs {

class BlockQueue {
 public:
  using Block = uintptr_t;  // a block's address; 0 is none

  explicit BlockQueue(size_t block_size) : block_size_(block_size) {}

  bool empty() const { return count_ == 0; }
  size_t size() const { return count_; }
  size_t free_bytes() const { return count_ * block_size_; }
  // Every block fits a request the policy let through.
  size_t Fit(size_t) const { return empty() ? 0 : block_size_; }

  Block Take(size_t) {
    if (empty()) return 0;
    const Block block = slots_[head_];
    head_ = (head_ + 1) & (slots_.size() - 1);
    count_--;
    return block;
  }

  // May throw std::bad_alloc when it has to grow.
  void Insert(Block block) {
    if (count_ == slots_.size()) Grow();
    slots_[(head_ + count_) & (slots_.size() - 1)] = block;
    count_++;
  }

  void MoveAllTo(BlockQueue& to) {
    if (&to == this) return;
    to.Reserve(count_);
    while (!empty()) to.Insert(Take(block_size_));
  }

  // Room for `count` more blocks without growing (may throw std::bad_alloc).
  void Reserve(size_t count) {
    while (slots_.size() < count_ + count) Grow();
  }

 private:
  void Grow() {
    std::vector<Block> slots(slots_.empty() ? 16 : slots_.size() * 2);
    for (size_t i = 0; i < count_; i++) slots[i] = slots_[(head_ + i) & (slots_.size() - 1)];
    slots_.swap(slots);
    head_ = 0;
  }

  size_t block_size_;
  std::vector<Block> slots_;  // a power of two in size
  size_t head_ = 0;
  size_t count_ = 0;
};

}  // namespace rmmjs
