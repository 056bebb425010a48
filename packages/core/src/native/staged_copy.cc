#include "staged_copy.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
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
#include "streaming_copy.h"

namespace rmmjs {
namespace {

constexpr size_t kMinStagedBytes = 16 << 20;

rmmjs_CUdeviceptr DevicePtr(const void* ptr) { return reinterpret_cast<rmmjs_CUdeviceptr>(ptr); }

// The shape of the staging, read once from internal environment variables (for tuning on a given
// machine; a value out of range is ignored with a warning in the debug log):
//   RMMJS_STAGED_CHUNK    bytes per pinned chunk (64 KiB to 1 GiB, rounded down to a multiple of
//                         64 KiB; default 2 MiB)
//   RMMJS_STAGED_DEPTH    pinned chunks per lane, the DMAs one lane keeps in flight (1 to 16;
//                         default 3)
//   RMMJS_STAGED_THREADS  lanes: threads doing host memcpy, each with its own stream (1 to 64;
//                         default three quarters of the cores, 1 to 12)
//   RMMJS_STAGED_STORES   which host memcpys write with streaming stores (StreamingCopy) instead of
//                         the C library's memcpy: 1 into the caller's memory (device->host), 2 into
//                         the pinned chunks (host->device), 3 both, 0 neither (default 1)
//   RMMJS_STAGED_SMALLEST the smallest piece, where a copy's pieces start and, with several lanes,
//                         end (64 KiB to 1 GiB, rounded down to a multiple of 64 KiB, at most a
//                         chunk; default 256 KiB; a chunk's size makes every piece a chunk)
// The defaults are the H200 host's best (tooling/scripts/copy-sweep.mjs): a pinned chunk the DMA is
// about to read is best left in the cache (cached stores), the caller's memory is not read again
// soon (streaming stores); 2 MiB chunks three deep per lane keep both ways within a few percent of
// the best point, where 8 MiB chunks lose a third.
// Chunks and pieces are whole multiples of it (but for a copy's last piece).
constexpr size_t kGranule = size_t{64} << 10;
constexpr int kMaxDepth = 16;  // RMMJS_STAGED_DEPTH's most

struct StagingShape {
  size_t chunk_bytes;
  size_t smallest_piece;
  int depth;
  int lanes;
  bool streaming_to_host;
  bool streaming_to_device;
};

int64_t EnvInteger(const char* name, int64_t fallback, int64_t min, int64_t max) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  long long value = std::strtoll(text, &end, 10);
  if (*end != '\0' || value < min || value > max) {
    Log(RMMJS_LOG_WARN, std::string(name) + "=" + text + " is not an integer from " + std::to_string(min) + " to " +
                            std::to_string(max) + ": ignored");
    return fallback;
  }
  return value;
}

const StagingShape& Shape() {
  static const StagingShape shape = [] {
    unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    int default_lanes = static_cast<int>(std::clamp(cores * 3 / 4, 1u, 12u));
    int64_t streaming = EnvInteger("RMMJS_STAGED_STORES", 1, 0, 3);
    size_t chunk = static_cast<size_t>(EnvInteger("RMMJS_STAGED_CHUNK", int64_t{2} << 20, kGranule, int64_t{1} << 30)) /
                   kGranule * kGranule;
    size_t smallest =
        static_cast<size_t>(EnvInteger("RMMJS_STAGED_SMALLEST", int64_t{256} << 10, kGranule, int64_t{1} << 30)) /
        kGranule * kGranule;
    return StagingShape{
        chunk,
        std::min(smallest, chunk),
        static_cast<int>(EnvInteger("RMMJS_STAGED_DEPTH", 3, 1, kMaxDepth)),
        static_cast<int>(EnvInteger("RMMJS_STAGED_THREADS", default_lanes, 1, 64)),
        (streaming & 1) != 0,
        (streaming & 2) != 0,
    };
  }();
  return shape;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14
#endif

// Host memory a device->host copy is about to write: pages that were never touched (a new
// Uint8Array) would each fault on the memcpy's first write, after the DMA; they are faulted in now,
// while the DMA runs. Memory already in place is left alone (one mincore per chunk tells).
void PrepareDestination(char* host, size_t bytes) {
  static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  uintptr_t begin = (reinterpret_cast<uintptr_t>(host) + page - 1) & ~(page - 1);
  uintptr_t end = (reinterpret_cast<uintptr_t>(host) + bytes) & ~(page - 1);
  if (begin >= end) return;
  unsigned char resident[2] = {0, 0};
  bool in_place = mincore(reinterpret_cast<void*>(begin), page, &resident[0]) == 0 &&
                  mincore(reinterpret_cast<void*>(end - page), page, &resident[1]) == 0 && (resident[0] & 1) != 0 &&
                  (resident[1] & 1) != 0;
  // Best effort: an older kernel refuses (EINVAL) and the memcpy faults the pages in as before.
  if (!in_place) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE);
}

// One lane: a non-blocking stream and `depth` pinned chunks, each with an event marking when the
// DMA that uses it has finished.
struct Lane {
  rmmjs_CUstream stream = nullptr;
  std::vector<void*> pinned;
  std::vector<rmmjs_CUevent> done;
};

// The staging resources of one device, made on first use and kept for the process. A creation
// that fails leaves nothing behind and is tried again by the next staged copy.
struct DeviceStager {
  std::mutex mutex;  // one staged copy at a time per device
  std::vector<Lane> lanes;
  rmmjs_CUevent start = nullptr;
  bool created = false;
};

#define RMMJS_CU(call, name)                                                                \
  do {                                                                                      \
    int rmmjs_cu_result_ = (call);                                                          \
    if (rmmjs_cu_result_ != RMMJS_CUDA_SUCCESS) return CudaFailure(rmmjs_cu_result_, name); \
  } while (0)

rmmjs_status CreateLanes(DeviceStager& stager) {
  const rmmjs_driver_api* cu = DriverApi();
  RMMJS_CU(cu->cuEventCreate(&stager.start, RMMJS_CU_EVENT_DISABLE_TIMING), "cuEventCreate");
  const StagingShape& shape = Shape();
  stager.lanes.resize(shape.lanes);
  for (Lane& lane : stager.lanes) {
    RMMJS_CU(cu->cuStreamCreateWithPriority(&lane.stream, RMMJS_CU_STREAM_NON_BLOCKING, 0),
             "cuStreamCreateWithPriority");
    lane.pinned.resize(shape.depth, nullptr);
    lane.done.resize(shape.depth, nullptr);
    for (int b = 0; b < shape.depth; b++) {
      RMMJS_CU(cu->cuMemHostAlloc(&lane.pinned[b], shape.chunk_bytes, RMMJS_CU_MEMHOSTALLOC_PORTABLE),
               "cuMemHostAlloc");
      RMMJS_CU(cu->cuEventCreate(&lane.done[b], RMMJS_CU_EVENT_DISABLE_TIMING), "cuEventCreate");
    }
  }
  return RMMJS_OK;
}

// Destroys what a failed creation made (nothing ran on it yet).
void DestroyLanes(DeviceStager& stager) {
  const rmmjs_driver_api* cu = DriverApi();
  for (Lane& lane : stager.lanes) {
    for (rmmjs_CUevent done : lane.done) {
      if (done != nullptr) cu->cuEventDestroy(done);
    }
    for (void* pinned : lane.pinned) {
      if (pinned != nullptr) cu->cuMemFreeHost(pinned);
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

// Hands the pieces of one copy to its lanes, in address order, as each lane is ready for one (a lane
// the scheduler holds back takes fewer pieces instead of delaying the end). A piece's length depends
// only on where it starts: the first ones are small, so that the first DMA starts after a short memcpy
// rather than a whole chunk's; each then holds half as much as all the pieces before it, up to a
// chunk; over the last chunk per lane they shrink again (a lane's share of what is left), so that
// the lanes finish together and the last DMA is short. Whole 64 KiB multiples, but for the copy's
// last piece.
class PieceCursor {
 public:
  PieceCursor(size_t bytes, size_t lanes, const StagingShape& shape)
      : bytes_(bytes), lanes_(lanes), chunk_(shape.chunk_bytes), smallest_(shape.smallest_piece) {}

  // The next piece, or false when the whole copy has been handed out (or cancelled).
  bool Claim(size_t* offset, size_t* length) {
    size_t start = next_.load(std::memory_order_relaxed);
    do {
      if (start >= bytes_) return false;
      *length = LengthAt(start);
    } while (!next_.compare_exchange_weak(start, start + *length, std::memory_order_relaxed));
    *offset = start;
    return true;
  }

  // No more pieces: a lane failed, and the copy reports that error rather than finish.
  void Cancel() { next_.store(bytes_, std::memory_order_relaxed); }

 private:
  size_t LengthAt(size_t start) const {
    const size_t remaining = bytes_ - start;
    size_t length = std::min(std::max(start / 2, smallest_), (remaining + lanes_ - 1) / lanes_);
    length = std::clamp(length, smallest_, chunk_);  // both whole granules
    // What would be left is less than a granule: it goes with this piece when the chunk holds both.
    if (remaining <= chunk_ && remaining - std::min(length, remaining) < kGranule) return remaining;
    return std::min(length, remaining);
  }

  const size_t bytes_, lanes_, chunk_, smallest_;
  std::atomic<size_t> next_{0};
};

// One lane's share of a copy: pieces from `cursor` until none is left, through the lane's `depth`
// pinned chunks in turn, so that up to `depth` DMAs of the lane are queued while it copies on the host.
rmmjs_status RunLane(CopyDirection direction, Lane& lane, PieceCursor& cursor, char* device_ptr, char* host_ptr,
                     int device) {
  const rmmjs_driver_api* cu = DriverApi();
  ContextScope scope(device);
  RMMJS_TRY(scope.status());
  const size_t depth = lane.pinned.size();
  size_t offset = 0;
  size_t length = 0;
  if (direction == CopyDirection::kHostToDevice) {
    auto* copy = Shape().streaming_to_device ? StreamingCopy : std::memcpy;
    for (size_t b = 0;; b = (b + 1) % depth) {
      RMMJS_CU(cu->cuEventSynchronize(lane.done[b]), "cuEventSynchronize");  // its last DMA ended
      if (!cursor.Claim(&offset, &length)) break;
      copy(lane.pinned[b], host_ptr + offset, length);
      RMMJS_CU(cu->cuMemcpyAsync(DevicePtr(device_ptr + offset), DevicePtr(lane.pinned[b]), length, lane.stream),
               "cuMemcpyAsync");
      RMMJS_CU(cu->cuEventRecord(lane.done[b], lane.stream), "cuEventRecord");
    }
  } else {
    // The piece each pinned chunk is fetching (length 0: none).
    std::array<std::pair<size_t, size_t>, kMaxDepth> fetching{};
    auto fetch = [&](size_t b) -> rmmjs_status {
      if (!cursor.Claim(&offset, &length)) return RMMJS_OK;
      fetching[b] = {offset, length};
      RMMJS_CU(cu->cuMemcpyAsync(DevicePtr(lane.pinned[b]), DevicePtr(device_ptr + offset), length, lane.stream),
               "cuMemcpyAsync");
      RMMJS_CU(cu->cuEventRecord(lane.done[b], lane.stream), "cuEventRecord");
      return RMMJS_OK;
    };
    auto* copy = Shape().streaming_to_host ? StreamingCopy : std::memcpy;
    for (size_t b = 0; b < depth; b++) RMMJS_TRY(fetch(b));
    // A pinned chunk is fetched into again as soon as it was copied out.
    for (size_t b = 0; fetching[b].second != 0; b = (b + 1) % depth) {
      auto [piece_offset, piece_length] = std::exchange(fetching[b], {0, 0});
      PrepareDestination(host_ptr + piece_offset, piece_length);
      RMMJS_CU(cu->cuEventSynchronize(lane.done[b]), "cuEventSynchronize");
      copy(host_ptr + piece_offset, lane.pinned[b], piece_length);
      RMMJS_TRY(fetch(b));
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
  const size_t chunk_bytes = Shape().chunk_bytes;
  int lanes = static_cast<int>(std::min(stager.lanes.size(), (bytes + chunk_bytes - 1) / chunk_bytes));
  PieceCursor cursor(bytes, static_cast<size_t>(lanes), Shape());
  std::vector<rmmjs_status> statuses(lanes, RMMJS_OK);
  std::vector<std::string> messages(lanes);
  std::vector<int> codes(lanes, 0);
  ParallelFor(lanes, [&](int index) {
    statuses[index] = RunLane(direction, stager.lanes[index], cursor, static_cast<char*>(device_ptr),
                              static_cast<char*>(host_ptr), device);
    if (statuses[index] != RMMJS_OK) {
      cursor.Cancel();
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
