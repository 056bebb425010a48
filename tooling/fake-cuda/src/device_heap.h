// Device memory as the driver hands it out: from one reserved address range per device, first
// fit, so small allocations sit next to each other (code that assumes otherwise breaks here as
// it would on a GPU). Pages are committed only when touched.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>

namespace fake {

class DeviceHeap {
 public:
  // nullptr when the range is full. bytes is a multiple of the alignment.
  void* Allocate(size_t bytes);
  void Free(void* ptr, size_t bytes);

 private:
  static constexpr size_t kReserved = size_t{64} << 30;  // address space, not memory
  bool Reserve();
  char* base_ = nullptr;
  std::map<size_t, size_t> free_;  // offset -> size, coalesced, address order
};

}  // namespace fake
