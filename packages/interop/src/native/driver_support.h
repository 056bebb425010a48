// The CUDA driver as @rmmjs/interop uses it: through core's table, which must have the CUDA IPC
// entry points (driver table version 2), with a device's primary context current.
#pragma once

#include <string>

#include "rmmjs/cuda_driver.h"
#include "rmmjs/status.hpp"

namespace rmmjs::interop {

// The driver table, or nullptr in host mode (then *status says why CUDA is missing, as core's
// errors do), or when core's table is older than the IPC entry points.
const rmmjs_driver_api* Driver(rmmjs_status* status);

// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" of a device, as nvidia-smi prints it.
rmmjs_status DeviceUuid(int device, std::string* out);
// The ordinal of the device with that UUID in this process, or -1.
rmmjs_status DeviceWithUuid(const std::string& uuid, int* device);

// What the driver knows of an address: kUnknown for memory it does not know (pageable host
// memory), else the kind of memory, its device and the memory pool it came from (0: none).
struct PointerInfo {
  enum Kind { kUnknown, kDevice, kManaged, kHost } kind = kUnknown;
  int device = 0;
  uintptr_t pool = 0;
};
rmmjs_status QueryPointer(const rmmjs_driver_api* driver, const void* ptr, PointerInfo* out);

}  // namespace rmmjs::interop
