#include "runtime/registry.h"

#include <mutex>
#include <vector>

#include "resources/resource.h"
#include "runtime/driver.h"
#include "runtime/errors.h"

namespace rmmjs {
namespace {

struct Registry {
  std::mutex mutex;
  std::vector<rmmjs_resource*> per_device;  // each entry holds one reference
};

Registry& TheRegistry() {
  static Registry* registry = new Registry();  // never destroyed: see DriverState
  return *registry;
}

rmmjs_status EntryLocked(Registry& registry, int device, rmmjs_resource*** entry) {
  if (registry.per_device.size() <= static_cast<size_t>(device)) {
    registry.per_device.resize(device + 1, nullptr);
  }
  rmmjs_resource** slot = &registry.per_device[device];
  if (*slot == nullptr) RMMJS_TRY(CreateDefaultResource(device, slot));
  *entry = slot;
  return RMMJS_OK;
}

}  // namespace

rmmjs_status GetPerDeviceResource(int device, rmmjs_resource** out) {
  RMMJS_TRY(ValidateDevice(device));
  Registry& registry = TheRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  rmmjs_resource** entry = nullptr;
  RMMJS_TRY(EntryLocked(registry, device, &entry));
  Retain(*entry);
  *out = *entry;
  return RMMJS_OK;
}

rmmjs_status GetCurrentDeviceResource(rmmjs_resource** out) {
  int device = 0;
  RMMJS_TRY(GetCurrentDevice(&device));
  return GetPerDeviceResource(device, out);
}

rmmjs_status SetPerDeviceResource(int device, rmmjs_resource* mr, rmmjs_resource** previous) {
  RMMJS_TRY(ValidateDevice(device));
  if (mr == nullptr) return SetError(RMMJS_ERR_INVALID_ARGUMENT, "mr must not be null");
  Registry& registry = TheRegistry();
  rmmjs_resource* old = nullptr;
  {
    std::lock_guard<std::mutex> lock(registry.mutex);
    rmmjs_resource** entry = nullptr;
    RMMJS_TRY(EntryLocked(registry, device, &entry));
    Retain(mr);
    old = *entry;
    *entry = mr;
  }
  if (previous != nullptr) {
    *previous = old;
  } else {
    Release(old);  // outside the lock: destroying a resource may take long
  }
  return RMMJS_OK;
}

std::vector<int> InitializedDevices() {
  Registry& registry = TheRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  std::vector<int> devices;
  for (size_t device = 0; device < registry.per_device.size(); device++) {
    if (registry.per_device[device] != nullptr) devices.push_back(static_cast<int>(device));
  }
  return devices;
}

}  // namespace rmmjs
