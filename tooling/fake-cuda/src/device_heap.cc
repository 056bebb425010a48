#include "device_heap.h"

#include <sys/mman.h>

#include <iterator>

namespace fake {

bool DeviceHeap::Reserve() {
  if (base_ != nullptr) return true;
  void* range = mmap(nullptr, kReserved, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (range == MAP_FAILED) return false;
  base_ = static_cast<char*>(range);
  free_.emplace(0, kReserved);
  return true;
}

void* DeviceHeap::Allocate(size_t bytes) {
  if (!Reserve()) return nullptr;
  for (auto block = free_.begin(); block != free_.end(); ++block) {
    if (block->second < bytes) continue;
    size_t offset = block->first;
    size_t left = block->second - bytes;
    free_.erase(block);
    if (left > 0) free_.emplace(offset + bytes, left);
    return base_ + offset;
  }
  return nullptr;
}

void DeviceHeap::Free(void* ptr, size_t bytes) {
  size_t offset = static_cast<size_t>(static_cast<char*>(ptr) - base_);
  auto next = free_.lower_bound(offset);
  if (next != free_.end() && offset + bytes == next->first) {
    bytes += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == offset) {
      prev->second += bytes;
      return;
    }
  }
  free_.emplace(offset, bytes);
}

}  // namespace fake
