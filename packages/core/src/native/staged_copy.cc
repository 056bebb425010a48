#include "staged_copy.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "driver.h"
#include "errors.h"
#include "logger.h"
#include "memory_ops.h"
#include "parallel_for.h"
#include "stream.h"

namespace rmmjs {
namespace {

constexpr size_t kChunkBytes = 4 << 20;
constexpr size_t kMinStagedBytes = 16 << 20;

rmmjs_CUdeviceptr DevicePtr(const void* ptr) { return reinterpret_cast<rmmjs_CUdeviceptr>(ptr); }

// One lane: a non-blocking stream and two pinned chunks, each with an event marking when the
// DMA that uses it has finished.
struct Lane {
  rmmjs_CUstream stream = nullptr;
  void* pinned[2] = {nullptr, nullptr};
  rmmjs_CUevent done[2] = {nullptr, nullptr};
};

// The staging resources of one device, made on first use and kept for the process. A creation
// that fails leaves nothing behind and is tried again by the next staged copy.
struct DeviceStager {
  std::mutex mutex;  // one staged copy at a time per device
  std::vector<Lane> lanes;
  rmmjs_CUevent start = nullptr;
  bool created = false;
};

// Half the cores, 1 to 8; RMMJS_STAGING_LANES overrides (1 to 32).
int LaneCount() {
  if (const char* text = std::getenv("RMMJS_STAGING_LANES")) {
    int lanes = std::atoi(text);
    if (lanes >= 1 && lanes <= 32) return lanes;
  }
  unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  return static_cast<int>(std::clamp(cores / 2, 1u, 8u));
}

#define RMMJS_CU(call, name)                                                                \
  do {                                                                                      \
    int rmmjs_cu_result_ = (call);                                                          \
    if (rmmjs_cu_result_ != RMMJS_CUDA_SUCCESS) return CudaFailure(rmmjs_cu_result_, name); \
  } while (0)

rmmjs_status CreateLanes(DeviceStager& stager) {
  const rmmjs_driver_api* cu = DriverApi();
  RMMJS_CU(cu->cuEventCreate(&stager.start, RMMJS_CU_EVENT_DISABLE_TIMING), "cuEventCreate");
  stager.lanes.resize(LaneCount());
  for (Lane& lane : stager.lanes) {
    RMMJS_CU(cu->cuStreamCreateWithPriority(&lane.stream, RMMJS_CU_STREAM_NON_BLOCKING, 0),
             "cuStreamCreateWithPriority");
    for (int b = 0; b < 2; b++) {
      RMMJS_CU(cu->cuMemHostAlloc(&lane.pinned[b], kChunkBytes, RMMJS_CU_MEMHOSTALLOC_PORTABLE), "cuMemHostAlloc");
      RMMJS_CU(cu->cuEventCreate(&lane.done[b], RMMJS_CU_EVENT_DISABLE_TIMING), "cuEventCreate");
    }
  }
  return RMMJS_OK;
}

// Destroys what a failed creation made (nothing ran on it yet).
void DestroyLanes(DeviceStager& stager) {
  const rmmjs_driver_api* cu = DriverApi();
  for (Lane& lane : stager.lanes) {
    for (int b = 0; b < 2; b++) {
      if (lane.done[b] != nullptr) cu->cuEventDestroy(lane.done[b]);
      if (lane.pinned[b] != nullptr) cu->cuMemFreeHost(lane.pinned[b]);
    }
    if (lane.stream != nullptr) cu->cuStreamDestroy(lane.stream);
  }
  stager.lanes.clear();
  if (stager.start != nullptr) cu->cuEventDestroy(std::exchange(stager.start, nullptr));
}

rmmjs_status Create(DeviceStager& stager, int device) {
  ContextScope scope(device);
  RMMJS_TRY(scope.status());
  rmmjs_status status = CreateLanes(stager);
  if (status != RMMJS_OK) DestroyLanes(stager);
  stager.created = status == RMMJS_OK;
  return status;
}

// The driver's own copy of pageable memory, for when the staging cannot be made.
rmmjs_status UnstagedCopy(CopyDirection direction, void* device_ptr, void* host_ptr, size_t bytes, rmmjs_stream stream,
                          int device) {
  ContextScope scope(device);
  RMMJS_TRY(scope.status());
  if (direction == CopyDirection::kHostToDevice) {
    RMMJS_TRY(MemcpyAsync(device_ptr, host_ptr, bytes, stream));
  } else {
    RMMJS_TRY(MemcpyAsync(host_ptr, device_ptr, bytes, stream));
  }
  return StreamSynchronizeOnDevice(stream, device);
}

DeviceStager& StagerFor(int device) {
  static auto* stagers = new std::vector<std::unique_ptr<DeviceStager>>(Driver().device_count);
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = (*stagers)[device];
  if (!slot) slot = std::make_unique<DeviceStager>();
  return *slot;
}

// The chunks lane `index` of `lanes` copies: index, index + lanes, ...
rmmjs_status RunLane(CopyDirection direction, Lane& lane, int index, int lanes, char* device_ptr, char* host_ptr,
                     size_t bytes, int device) {
  const rmmjs_driver_api* cu = DriverApi();
  ContextScope scope(device);
  RMMJS_TRY(scope.status());
  size_t chunks = (bytes + kChunkBytes - 1) / kChunkBytes;
  auto offset = [&](size_t chunk) { return chunk * kChunkBytes; };
  auto length = [&](size_t chunk) { return std::min(kChunkBytes, bytes - offset(chunk)); };
  size_t step = static_cast<size_t>(lanes);
  if (direction == CopyDirection::kHostToDevice) {
    int b = 0;
    for (size_t chunk = index; chunk < chunks; chunk += step, b ^= 1) {
      RMMJS_CU(cu->cuEventSynchronize(lane.done[b]), "cuEventSynchronize");  // its last DMA ended
      std::memcpy(lane.pinned[b], host_ptr + offset(chunk), length(chunk));
      RMMJS_CU(cu->cuMemcpyAsync(DevicePtr(device_ptr + offset(chunk)), DevicePtr(lane.pinned[b]), length(chunk),
                                 lane.stream),
               "cuMemcpyAsync");
      RMMJS_CU(cu->cuEventRecord(lane.done[b], lane.stream), "cuEventRecord");
    }
  } else {
    // Keep one DMA ahead: chunk k+step lands in the other buffer while chunk k is copied out.
    auto fetch = [&](size_t chunk, int b) -> rmmjs_status {
      RMMJS_CU(cu->cuMemcpyAsync(DevicePtr(lane.pinned[b]), DevicePtr(device_ptr + offset(chunk)), length(chunk),
                                 lane.stream),
               "cuMemcpyAsync");
      RMMJS_CU(cu->cuEventRecord(lane.done[b], lane.stream), "cuEventRecord");
      return RMMJS_OK;
    };
    int b = 0;
    if (static_cast<size_t>(index) < chunks) RMMJS_TRY(fetch(index, b));
    for (size_t chunk = index; chunk < chunks; chunk += step, b ^= 1) {
      if (chunk + step < chunks) RMMJS_TRY(fetch(chunk + step, b ^ 1));
      RMMJS_CU(cu->cuEventSynchronize(lane.done[b]), "cuEventSynchronize");
      std::memcpy(host_ptr + offset(chunk), lane.pinned[b], length(chunk));
    }
  }
  RMMJS_CU(cu->cuStreamSynchronize(lane.stream), "cuStreamSynchronize");
  return RMMJS_OK;
}

}  // namespace

bool ShouldStage(const void* host, size_t bytes) {
  const rmmjs_driver_api* cu = DriverApi();
  if (cu == nullptr || bytes < kMinStagedBytes) return false;
  unsigned int type = 0;
  // Host memory the driver knows (pinned, registered, managed) answers; pageable memory does not.
  return cu->cuPointerGetAttribute(&type, RMMJS_CU_POINTER_ATTRIBUTE_MEMORY_TYPE, DevicePtr(host)) !=
         RMMJS_CUDA_SUCCESS;
}

rmmjs_status StagedCopy(CopyDirection direction, void* device_ptr, void* host_ptr, size_t bytes, rmmjs_stream stream,
                        int device) {
  DeviceStager& stager = StagerFor(device);
  std::lock_guard<std::mutex> lock(stager.mutex);
  if (!stager.created && Create(stager, device) != RMMJS_OK) {
    Log(RMMJS_LOG_WARN, std::string("the pinned staging buffers for host copies could not be made (tried again "
                                    "by the next large copy); this copy goes unstaged: ") +
                            ErrorMessage());
    return UnstagedCopy(direction, device_ptr, host_ptr, bytes, stream, device);
  }
  const rmmjs_driver_api* cu = DriverApi();
  {
    // Order the lanes after the work already queued on the caller's stream.
    ContextScope scope(device);
    RMMJS_TRY(scope.status());
    RMMJS_CU(cu->cuEventRecord(stager.start, reinterpret_cast<rmmjs_CUstream>(stream)), "cuEventRecord");
    for (Lane& lane : stager.lanes) RMMJS_CU(cu->cuStreamWaitEvent(lane.stream, stager.start, 0), "cuStreamWaitEvent");
  }
  int lanes = static_cast<int>(std::min(stager.lanes.size(), (bytes + kChunkBytes - 1) / kChunkBytes));
  std::vector<rmmjs_status> statuses(lanes, RMMJS_OK);
  std::vector<std::string> messages(lanes);
  std::vector<int> codes(lanes, 0);
  ParallelFor(lanes, [&](int index) {
    statuses[index] = RunLane(direction, stager.lanes[index], index, lanes, static_cast<char*>(device_ptr),
                              static_cast<char*>(host_ptr), bytes, device);
    if (statuses[index] != RMMJS_OK) {
      messages[index] = ErrorMessage();  // thread-local: carry it to the calling thread
      codes[index] = ErrorCudaCode();
    }
  });
  for (int index = 0; index < lanes; index++) {
    if (statuses[index] != RMMJS_OK) {
      // Let the other lanes' work drain before reporting (their buffers are reused next time).
      ContextScope scope(device);
      for (Lane& lane : stager.lanes) cu->cuStreamSynchronize(lane.stream);
      return SetError(statuses[index], codes[index], messages[index]);
    }
  }
  return RMMJS_OK;
}

}  // namespace rmmjs
