// A FIFO of free blocks: RMM's fixed_size_free_list (a std::list used as a queue) as a ring
// buffer, so pushing and popping allocate nothing once it has grown to its working size.
#pragma once

#include <cstddef>
#include <vector>

namespace rmmjs {

class BlockQueue {
 public:
  bool empty() const { return count_ == 0; }
  size_t size() const { return count_; }

  // May throw std::bad_alloc when it has to grow.
  void Push(void* block) {
    if (count_ == slots_.size()) Grow();
    slots_[(head_ + count_) & (slots_.size() - 1)] = block;
    count_++;
  }

  void* Pop() {
    void* block = slots_[head_];
    head_ = (head_ + 1) & (slots_.size() - 1);
    count_--;
    return block;
  }

  // Room for `count` more blocks without growing (may throw std::bad_alloc).
  void Reserve(size_t count) {
    while (slots_.size() < count_ + count) Grow();
  }

 private:
  void Grow() {
    std::vector<void*> slots(slots_.empty() ? 16 : slots_.size() * 2);
    for (size_t i = 0; i < count_; i++) slots[i] = slots_[(head_ + i) & (slots_.size() - 1)];
    slots_.swap(slots);
    head_ = 0;
  }

  std::vector<void*> slots_;  // a power of two in size
  size_t head_ = 0;
  size_t count_ = 0;
};

}  // namespace rmmjs
