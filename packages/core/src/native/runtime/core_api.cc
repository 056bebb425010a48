#include "runtime/core_api.h"

#include "bindings/tracked_owners.h"

#include "copies/memory_ops.h"
#include "resources/resource.h"
#include "rmmjs/resource.hpp"
#include "runtime/driver.h"
#include "runtime/errors.h"
#include "runtime/logger.h"
#include "runtime/registry.h"
#include "runtime/stream.h"

namespace rmmjs {
namespace {

// Append-only layouts: the members of each minor keep their places (a member inserted before
// them would break every addon built against that minor).
static_assert(RMMJS_CORE_API_SIZE_1_0 == 2 * sizeof(uint32_t) + sizeof(size_t) + 31 * sizeof(void*),
              "ABI 1.0's members moved");
static_assert(RMMJS_CORE_API_SIZE_1_1 == RMMJS_CORE_API_SIZE_1_0 + 2 * sizeof(void*), "ABI 1.1's members moved");
static_assert(RMMJS_CORE_API_SIZE_1_2 ==
                  RMMJS_CORE_API_SIZE_1_1 + sizeof(void*) + sizeof(uint32_t) + 4 + sizeof(size_t),
              "ABI 1.2's members moved");
static_assert(RMMJS_CORE_API_SIZE_1_4 == RMMJS_CORE_API_SIZE_1_3 + 2 * sizeof(void*), "ABI 1.4's members moved");
static_assert(RMMJS_CORE_API_SIZE_1_4 == sizeof(rmmjs_core_api), "a member was appended: add its minor's size");
static_assert(RMMJS_DRIVER_API_SIZE_1 == 45 * sizeof(void*), "driver entry points of version 1 moved");
static_assert(RMMJS_DRIVER_API_SIZE_2 == 58 * sizeof(void*), "driver entry points of version 2 moved");
static_assert(RMMJS_DRIVER_API_SIZE_3 == 59 * sizeof(void*), "driver entry points of version 3 moved");
static_assert(sizeof(rmmjs_driver_api) == RMMJS_DRIVER_API_SIZE_3,
              "a driver entry point was appended: raise RMMJS_DRIVER_API_VERSION and add its size");

// Runs op with the current device's context current: third-party callers may have none.
template <class Op>
rmmjs_status InCurrentDeviceContext(Op&& op) {
  int device = 0;
  RMMJS_TRY(GetCurrentDevice(&device));
  ContextScope scope(device);
  RMMJS_TRY(scope.status());
  return op();
}

rmmjs_core_api BuildTable() {
  rmmjs_core_api api{};
  api.abi_major = RMMJS_ABI_MAJOR;
  api.abi_minor = RMMJS_ABI_MINOR;
  api.size = sizeof(rmmjs_core_api);

  api.resource_init = ResourceInit;
  api.retain = Retain;
  api.release = Release;
  api.allocate = Allocate;
  api.deallocate = Deallocate;
  api.is_equal = IsEqual;

  api.get_current_device_resource = GetCurrentDeviceResource;
  api.get_per_device_resource = GetPerDeviceResource;
  api.set_per_device_resource = SetPerDeviceResource;

  api.cuda_available = [] { return CudaAvailable() ? 1 : 0; };
  api.driver = DriverApi;
  api.get_device_count = [](int32_t* count) {
    RMMJS_TRY(RequireUsableDriver());
    *count = Driver().device_count;
    return RMMJS_OK;
  };
  api.get_current_device = [](int32_t* device) {
    int value = 0;
    RMMJS_TRY(GetCurrentDevice(&value));
    *device = value;
    return RMMJS_OK;
  };
  api.context_push = [](int32_t device, void** saved) { return ContextPush(device, saved); };
  api.context_restore = ContextRestore;

  api.stream_synchronize = StreamSynchronize;
  api.event_create = EventCreate;
  api.event_destroy = EventDestroy;
  api.event_record = EventRecord;
  api.event_synchronize = EventSynchronize;
  api.stream_wait_event = StreamWaitEvent;

  api.memcpy_async = [](void* dst, const void* src, size_t bytes, rmmjs_stream stream) {
    return InCurrentDeviceContext([&] { return MemcpyAsync(dst, src, bytes, stream); });
  };
  api.memset_async = [](void* dst, int value, size_t bytes, rmmjs_stream stream) {
    return InCurrentDeviceContext([&] { return MemsetAsync(dst, value, bytes, stream); });
  };
  api.mem_get_info = [](int32_t device, size_t* free_bytes, size_t* total_bytes) {
    return MemGetInfo(device, free_bytes, total_bytes);
  };
  api.prefetch = [](void* ptr, size_t bytes, int32_t device, rmmjs_stream stream) {
    return InCurrentDeviceContext([&] { return Prefetch(ptr, bytes, device, stream); });
  };

  api.set_error = [](rmmjs_status status, int cuda_code, const char* message) {
    return SetError(status, cuda_code, message ? message : "");
  };
  api.error_message = ErrorMessage;
  api.error_cuda_code = ErrorCudaCode;

  api.should_log = [](rmmjs_log_level level) { return ShouldLog(level) ? 1 : 0; };
  api.log = [](rmmjs_log_level level, const char* message) { Log(level, message ? message : ""); };
  api.log_flush = FlushLog;

  api.stream_id = StreamId;
  api.device_synchronize = [](int32_t device) { return DeviceSynchronize(device); };

  api.resource_init_checked = ResourceInitChecked;
  api.driver_version = RMMJS_DRIVER_API_VERSION;
  api.driver_size = sizeof(rmmjs_driver_api);

  api.stream_check_device = StreamCheckDevice;

  api.track_owner = bind::TrackOwner;
  api.untrack_owner = bind::UntrackOwner;
  return api;
}

}  // namespace

const rmmjs_core_api* CoreApiTable() {
  static const rmmjs_core_api table = BuildTable();
  return &table;
}

// Core's own resources are built with the same helpers as any addon's.
static const bool kInstalled = (g_core_api = CoreApiTable(), true);

}  // namespace rmmjs
