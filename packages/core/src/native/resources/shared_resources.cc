#include "resources/shared_resources.h"

#include <mutex>
#include <unordered_map>

namespace rmmjs {
namespace {

// RetainShared and ForgetShared both run under the mutex, and the last release of a resource
// calls ForgetShared before the resource is destroyed. So while RetainShared holds the mutex, a
// resource it finds in the table is still allocated: its refcount can be read and, if not 0 yet,
// raised. A release that reached 0 on another thread meanwhile leaves it at 0 (gone), and that
// thread's ForgetShared waits for the mutex.
struct SharedResources {
  std::mutex mutex;
  uint64_t next_id = 1;
  std::unordered_map<uint64_t, rmmjs_resource*> by_id;
  std::unordered_map<const rmmjs_resource*, uint64_t> by_resource;
};

SharedResources& Table() {
  static SharedResources* table = new SharedResources();  // never destroyed: resources may go during exit
  return *table;
}

// Adds one to a refcount that is not 0 yet (a reference taken from the table, not from an owner).
bool RetainIfAlive(rmmjs_resource* mr) {
  int64_t count = __atomic_load_n(&mr->refcount, __ATOMIC_RELAXED);
  do {
    if (count <= 0) return false;
  } while (!__atomic_compare_exchange_n(&mr->refcount, &count, count + 1, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
  return true;
}

}  // namespace

uint64_t ShareResource(rmmjs_resource* mr) {
  SharedResources& table = Table();
  std::lock_guard<std::mutex> lock(table.mutex);
  auto found = table.by_resource.find(mr);
  if (found != table.by_resource.end()) return found->second;
  uint64_t id = table.next_id;
  table.by_id.emplace(id, mr);  // a std::bad_alloc here changes nothing
  try {
    table.by_resource.emplace(mr, id);
  } catch (...) {
    table.by_id.erase(id);
    throw;
  }
  table.next_id++;
  return id;
}

rmmjs_resource* RetainShared(uint64_t id) {
  SharedResources& table = Table();
  std::lock_guard<std::mutex> lock(table.mutex);
  auto found = table.by_id.find(id);
  if (found == table.by_id.end() || !RetainIfAlive(found->second)) return nullptr;
  return found->second;
}

void ForgetShared(const rmmjs_resource* mr) {
  SharedResources& table = Table();
  std::lock_guard<std::mutex> lock(table.mutex);
  auto found = table.by_resource.find(mr);
  if (found == table.by_resource.end()) return;
  table.by_id.erase(found->second);
  table.by_resource.erase(found);
}

}  // namespace rmmjs
