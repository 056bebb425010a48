#include "driver_support.h"

#include <cstdio>

namespace rmmjs::interop {

const rmmjs_driver_api* Driver(rmmjs_status* status) {
  const rmmjs_core_api* core = CoreApi();
  const rmmjs_driver_api* driver = core->driver();
  if (driver == nullptr) {
    // core's own message for "no CUDA" (driver not found, no device, or a broken driver).
    int32_t count = 0;
    *status = core->get_device_count(&count);
    if (*status == RMMJS_OK) {
      *status = Fail(RMMJS_ERR_DRIVER_NOT_FOUND,
                     "CUDA IPC and CUDA memory need the CUDA driver, and rmmjs runs in host mode (no driver or no "
                     "GPU, or RMMJS_DISABLE_CUDA is set)");
    }
    return nullptr;
  }
  if (!RMMJS_DRIVER_HAS(core, cuMemPoolImportPointer)) {
    *status = Fail(RMMJS_ERR_LOGIC,
                   "@rmmjs/core is too old for @rmmjs/interop (its driver table has no CUDA IPC entry "
                   "points): install matching versions of @rmmjs packages");
    return nullptr;
  }
  *status = RMMJS_OK;
  return driver;
}

rmmjs_status DeviceUuid(int device, std::string* out) {
  rmmjs_status status = RMMJS_OK;
  const rmmjs_driver_api* driver = Driver(&status);
  if (driver == nullptr) return status;
  rmmjs_CUuuid uuid{};
  int result = driver->cuDeviceGetUuid(&uuid, device);
  if (result != RMMJS_CUDA_SUCCESS) return FailCuda(result, "cuDeviceGetUuid_v2");
  char text[48];
  const auto* b = reinterpret_cast<const unsigned char*>(uuid.bytes);
  std::snprintf(text, sizeof(text), "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
  *out = text;
  return RMMJS_OK;
}

rmmjs_status DeviceWithUuid(const std::string& uuid, int* device) {
  *device = -1;
  int32_t count = 0;
  RMMJS_TRY(CoreApi()->get_device_count(&count));
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    std::string candidate;
    RMMJS_TRY(DeviceUuid(ordinal, &candidate));
    if (candidate == uuid) {
      *device = ordinal;
      return RMMJS_OK;
    }
  }
  return RMMJS_OK;
}

rmmjs_status QueryPointer(const rmmjs_driver_api* driver, const void* ptr, PointerInfo* out) {
  int attributes[] = {RMMJS_CU_POINTER_ATTRIBUTE_MEMORY_TYPE, RMMJS_CU_POINTER_ATTRIBUTE_IS_MANAGED,
                      RMMJS_CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, RMMJS_CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE};
  unsigned int type = 0;
  unsigned int managed = 0;
  int ordinal = 0;
  rmmjs_CUmemoryPool pool = nullptr;
  void* data[] = {&type, &managed, &ordinal, &pool};
  // Memory the driver does not know is no error here: its attributes are NULL (0).
  int result = driver->cuPointerGetAttributes(4, attributes, data, reinterpret_cast<rmmjs_CUdeviceptr>(ptr));
  if (result != RMMJS_CUDA_SUCCESS) return FailCuda(result, "cuPointerGetAttributes");
  *out = PointerInfo{};
  if (managed != 0) {
    out->kind = PointerInfo::kManaged;
  } else if (type == RMMJS_CU_MEMORYTYPE_DEVICE) {
    out->kind = PointerInfo::kDevice;
  } else if (type == RMMJS_CU_MEMORYTYPE_HOST) {
    out->kind = PointerInfo::kHost;
  }
  out->device = ordinal;
  out->pool = reinterpret_cast<uintptr_t>(pool);
  return RMMJS_OK;
}

}  // namespace rmmjs::interop
