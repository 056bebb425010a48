#include "device_heap.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <iterator>
#include <string>

namespace fake {

bool DeviceHeap::Reserve() {
  if (base_ != nullptr) return true;
  int fd = memfd_create("fakecuda-device-heap", MFD_CLOEXEC);
  if (fd >= 0 && ftruncate(fd, static_cast<off_t>(kReserved)) != 0) {
    close(fd);
    fd = -1;
  }
  void* range =
      fd >= 0 ? mmap(nullptr, kReserved, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0)
              : mmap(nullptr, kReserved, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (range == MAP_FAILED) {
    if (fd >= 0) close(fd);
    return false;
  }
  base_ = static_cast<char*>(range);
  fd_ = fd;
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

void* MapForeignHeap(int pid, int fd, uint64_t offset, size_t length) {
  std::string path = "/proc/" + std::to_string(pid) + "/fd/" + std::to_string(fd);
  int opened = open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (opened < 0) return nullptr;
  void* range =
      mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, opened, static_cast<off_t>(offset));
  close(opened);  // the mapping keeps the file
  return range == MAP_FAILED ? nullptr : range;
}

}  // namespace fake
