// Device memory as the driver hands it out: from one reserved address range per device, first
// fit, so small allocations sit next to each other (code that assumes otherwise breaks here as
// it would on a GPU). Pages are committed only when touched.
//
// The range is a shared mapping of a memory file (memfd), so that another process can map what
// cuIpcGetMemHandle or cuMemPoolExportToShareableHandle shares (through /proc/<pid>/fd/<fd>).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>

namespace fake {

class DeviceHeap {
 public:
  static constexpr size_t kReserved = size_t{64} << 30;  // address space, not memory

  // nullptr when the range is full. bytes is a multiple of the alignment.
  void* Allocate(size_t bytes);
  void Free(void* ptr, size_t bytes);
  // The memory file behind the range (-1 before the first allocation, or where memfd_create is
  // missing: then nothing can be shared), and an address's offset in it.
  int fd() const { return fd_; }
  uint64_t OffsetOf(const void* ptr) const { return static_cast<uint64_t>(static_cast<const char*>(ptr) - base_); }

 private:
  bool Reserve();
  char* base_ = nullptr;
  int fd_ = -1;
  std::map<size_t, size_t> free_;  // offset -> size, coalesced, address order
};

// Maps `length` bytes at `offset` (a multiple of the page size) of another process's device heap
// (its pid and the heap's fd there), or returns nullptr when that process or file is gone or
// cannot be opened.
void* MapForeignHeap(int pid, int fd, uint64_t offset, size_t length);

}  // namespace fake
