#include "buffers/transfers.h"

#include <mutex>
#include <new>
#include <string>
#include <unordered_map>
#include <utility>

#include "runtime/logger.h"

namespace rmmjs {
namespace {

struct Transfers {
  std::mutex mutex;
  uint64_t next_id = 1;
  std::unordered_map<uint64_t, DeviceBuffer*> buffers;  // each owned by the table
};

Transfers& Table() {
  static Transfers* table = new Transfers();  // never destroyed: see FreeUnclaimedTransfers
  return *table;
}

}  // namespace

uint64_t AddTransfer(DeviceBuffer* buffer) {
  Transfers& table = Table();
  std::lock_guard<std::mutex> lock(table.mutex);
  table.buffers.emplace(table.next_id, buffer);
  return table.next_id++;
}

DeviceBuffer* TakeTransfer(uint64_t id) {
  Transfers& table = Table();
  std::lock_guard<std::mutex> lock(table.mutex);
  auto found = table.buffers.find(id);
  if (found == table.buffers.end()) return nullptr;
  DeviceBuffer* buffer = found->second;
  table.buffers.erase(found);
  return buffer;
}

void RestoreTransfer(uint64_t id, DeviceBuffer* buffer) {
  Transfers& table = Table();
  std::lock_guard<std::mutex> lock(table.mutex);
  try {
    table.buffers.emplace(id, buffer);
  } catch (const std::bad_alloc&) {
    Log(RMMJS_LOG_ERROR, "DeviceBuffer: out of host memory putting back a transferred buffer; freeing it now");
    delete buffer;  // tries the deallocation once more (a failure is logged)
  }
}

void FreeUnclaimedTransfers() {
  std::unordered_map<uint64_t, DeviceBuffer*> left;
  {
    Transfers& table = Table();
    std::lock_guard<std::mutex> lock(table.mutex);
    left = std::exchange(table.buffers, {});
  }
  if (left.empty()) return;
  size_t bytes = 0;
  for (const auto& [id, buffer] : left) bytes += buffer->capacity();
  Log(RMMJS_LOG_WARN, "DeviceBuffer: " + std::to_string(left.size()) + " transferred buffer(s) of " +
                          std::to_string(bytes) +
                          " bytes in all were never claimed (DeviceBuffer.fromTransferred) nor reclaimed "
                          "(DeviceBuffer.reclaim); freeing them at exit");
  for (const auto& [id, buffer] : left) delete buffer;  // a failed deallocation is logged
}

}  // namespace rmmjs
