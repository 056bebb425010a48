#include "copies/staged_copy.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "copies/memory_ops.h"
#include "copies/parallel_for.h"
#include "copies/streaming_copy.h"
#include "rmmjs/spin_lock.hpp"
#include "runtime/driver.h"
#include "runtime/errors.h"
#include "runtime/logger.h"
#include "runtime/stream.h"

namespace rmmjs {
namespace {

constexpr size_t kMinStagedBytes = 16 << 20;

// How long the lanes keep spinning after a staged copy, for the next one (ParallelForAwake). On the
// H200's host, lanes woken from sleep started up to 0.5 ms late, and back-to-back 256 MiB copies to
// the device ran at 0.84-0.89 of pinned copies instead of 0.89-0.91.
constexpr std::chrono::microseconds kLanesLinger{500};

rmmjs_CUdeviceptr DevicePtr(const void* ptr) { return reinterpret_cast<rmmjs_CUdeviceptr>(ptr); }

// The shape of the staging, fixed by the first staged copy of the process: the defaults below, or
// what SetStagingShape set before it (for tuning on a given machine and for the tests):
//   chunk bytes     per pinned chunk, the most one DMA moves (64 KiB to 1 GiB, rounded down to a
//                   multiple of 64 KiB; default 8 MiB)
//   depth           pinned chunks in the ring: DMAs queued and spans being filled or emptied (1 to
//                   64; default 8)
//   piece bytes     the most one host memcpy moves (64 KiB to 1 GiB, rounded down to a multiple of
//                   64 KiB; default 1 MiB)
//   lanes           threads doing host memcpy (1 to 64; default three quarters of the cores, 1 to 12)
//   stores          which host memcpys write with streaming stores (StreamingCopy) instead of the C
//                   library's memcpy: 1 into the caller's memory (device->host), 2 into the pinned
//                   chunks (host->device), 3 both, 0 neither (default 1)
//   smallest span   the shortest span (one DMA), where a copy's spans start and end (64 KiB to 1 GiB,
//                   rounded down to a multiple of 64 KiB, at most a chunk; default 512 KiB; a chunk's
//                   size makes every span but the last a chunk)
// The defaults are the H200 host's best (tooling/scripts/copy-sweep.mjs). A DMA has a fixed cost:
// pinned copies in 2 MiB pieces reach 0.93 of one whole copy, in 8 MiB pieces 0.98. So the DMAs
// move whole 8 MiB chunks while the lanes fill or empty them in pieces of 1 MiB; eight chunks let
// the memcpys run ahead of the DMA by several spans. A pinned chunk the DMA is about to read is
// best left in the cache (cached stores); the caller's memory is not read again soon (streaming
// stores).
// Chunks, spans and pieces are whole multiples of it (but for a copy's last span and a span's last
// piece).
constexpr size_t kGranule = size_t{64} << 10;
constexpr int64_t kMostBytes = int64_t{1} << 30;

struct StagingShape {
  size_t chunk_bytes;
  size_t piece_bytes;
  size_t smallest_span;
  int depth;
  int lanes;
  bool streaming_to_host;
  bool streaming_to_device;
};

// What SetStagingShape set (unset members keep their defaults), and whether the shape is fixed.
std::mutex g_shape_mutex;
StagingOverrides g_overrides;
bool g_shape_fixed = false;

const StagingShape& Shape() {
  static const StagingShape shape = [] {
    std::lock_guard<std::mutex> lock(g_shape_mutex);
    g_shape_fixed = true;
    const StagingOverrides& given = g_overrides;
    unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    int64_t default_lanes = std::clamp(cores * 3 / 4, 1u, 12u);
    // Sizes are whole granules.
    auto bytes = [](const std::optional<int64_t>& value, int64_t fallback) {
      return static_cast<size_t>(value.value_or(fallback)) / kGranule * kGranule;
    };
    size_t chunk = bytes(given.chunk_bytes, int64_t{8} << 20);
    int64_t stores = given.stores.value_or(1);
    return StagingShape{
        chunk,
        std::min(bytes(given.piece_bytes, int64_t{1} << 20), chunk),
        std::min(bytes(given.smallest_span, int64_t{512} << 10), chunk),
        static_cast<int>(given.depth.value_or(8)),
        static_cast<int>(given.lanes.value_or(default_lanes)),
        (stores & 1) != 0,
        (stores & 2) != 0,
    };
  }();
  return shape;
}

// RMMJS_ERR_OUT_OF_RANGE unless value (when given) is an integer from min to max.
rmmjs_status CheckRange(const char* name, const std::optional<int64_t>& value, int64_t min, int64_t max) {
  if (!value.has_value() || (*value >= min && *value <= max)) return RMMJS_OK;
  return SetError(RMMJS_ERR_OUT_OF_RANGE, std::string("The value of \"") + name +
                                              "\" is out of range. It must be an integer from " + std::to_string(min) +
                                              " to " + std::to_string(max) + ". Received " + std::to_string(*value));
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14
#endif

// Host memory a device->host copy is about to write: pages that were never touched (a new
// Uint8Array) would each fault on the memcpy's first write, after the DMA; they are faulted in now,
// while the DMA runs. Memory already in place is left alone (mincore of a piece's first and last
// pages tells).
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

// The staging resources of one device, made on first use and kept for the process: a ring of
// `depth` pinned chunks, each with an event marking when the last DMA that used it has finished,
// and the one stream every DMA of a staged copy goes on. A creation that fails leaves nothing behind
// and is tried again by the next staged copy.
struct DeviceStager {
  std::mutex mutex;  // one staged copy at a time per device
  rmmjs_CUstream stream = nullptr;
  std::vector<void*> chunks;
  std::vector<rmmjs_CUevent> done;
  rmmjs_CUevent start = nullptr;
  bool created = false;
};

rmmjs_status CreateRing(DeviceStager& stager) {
  const rmmjs_driver_api* cu = DriverApi();
  RMMJS_TRY(CheckCuda(cu->cuEventCreate(&stager.start, RMMJS_CU_EVENT_DISABLE_TIMING), "cuEventCreate"));
  RMMJS_TRY(CheckCuda(cu->cuStreamCreateWithPriority(&stager.stream, RMMJS_CU_STREAM_NON_BLOCKING, 0),
                      "cuStreamCreateWithPriority"));
  const StagingShape& shape = Shape();
  stager.chunks.resize(shape.depth, nullptr);
  stager.done.resize(shape.depth, nullptr);
  for (int slot = 0; slot < shape.depth; slot++) {
    RMMJS_TRY(CheckCuda(cu->cuMemHostAlloc(&stager.chunks[slot], shape.chunk_bytes, RMMJS_CU_MEMHOSTALLOC_PORTABLE),
                        "cuMemHostAlloc"));
    RMMJS_TRY(CheckCuda(cu->cuEventCreate(&stager.done[slot], RMMJS_CU_EVENT_DISABLE_TIMING), "cuEventCreate"));
  }
  return RMMJS_OK;
}

// Destroys what a failed creation made (nothing ran on it yet).
void DestroyRing(DeviceStager& stager) {
  const rmmjs_driver_api* cu = DriverApi();
  for (rmmjs_CUevent done : stager.done) {
    if (done != nullptr) cu->cuEventDestroy(done);
  }
  for (void* chunk : stager.chunks) {
    if (chunk != nullptr) cu->cuMemFreeHost(chunk);
  }
  stager.done.clear();
  stager.chunks.clear();
  if (stager.stream != nullptr) cu->cuStreamDestroy(std::exchange(stager.stream, nullptr));
  if (stager.start != nullptr) cu->cuEventDestroy(std::exchange(stager.start, nullptr));
}

rmmjs_status Create(DeviceStager& stager, int device) {
  ContextScope scope(device);
  RMMJS_TRY(scope.status());
  rmmjs_status status = GuardHostMemory("the pinned staging buffers", [&] { return CreateRing(stager); });
  if (status != RMMJS_OK) DestroyRing(stager);
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

// How one copy is cut up. Spans are what one DMA moves, each through one pinned chunk (span i
// through chunk i % depth); pieces are what one host memcpy moves, a span's pieces filled or emptied
// by whichever lanes are free, so that the DMAs stay long while many lanes share each span. A span's
// length depends only on where it starts: half of what lies before it or after it, whichever is
// less, from the smallest span up to a chunk (so the first DMA starts, and the last memcpy of a
// device->host copy ends, after a short span rather than a whole chunk's). A span's pieces are its
// share for each lane, from 64 KiB up to the largest piece.
struct Span {
  size_t start;
  size_t length;
  size_t first_piece;  // index of its first piece among the copy's
  size_t piece;        // length of its pieces (but the last)
};

std::vector<Span> CutIntoSpans(size_t bytes, size_t lanes, const StagingShape& shape) {
  std::vector<Span> spans;
  size_t start = 0;
  size_t pieces = 0;
  while (start < bytes) {
    const size_t remaining = bytes - start;
    size_t length =
        std::clamp(std::min(start, remaining) / 2 / kGranule * kGranule, shape.smallest_span, shape.chunk_bytes);
    // What would be left is less than a granule: it goes with this span when the chunk holds both.
    if (remaining <= shape.chunk_bytes && remaining - std::min(length, remaining) < kGranule) length = remaining;
    length = std::min(length, remaining);
    size_t piece = std::clamp((length / lanes + kGranule - 1) / kGranule * kGranule, kGranule, shape.piece_bytes);
    spans.push_back(Span{start, length, pieces, piece});
    pieces += (length + piece - 1) / piece;
    start += length;
  }
  spans.push_back(Span{bytes, 0, pieces, 0});  // the end: its first piece is the copy's piece count
  return spans;
}

// The state the lanes of one copy share. Each chunk records which span last had its DMA queued in
// it (-1: none yet), so that a lane about to use a chunk for span i first waits until span i - depth
// (host->device: the previous span filled into it) or span i (device->host: the one it fetches) was
// queued, and then for that DMA's event.
class StagedCopyState {
 public:
  StagedCopyState(CopyDirection direction, DeviceStager& stager, char* device_ptr, char* host_ptr, size_t bytes,
                  size_t lanes)
      : direction_(direction),
        stager_(stager),
        device_ptr_(device_ptr),
        host_ptr_(host_ptr),
        spans_(CutIntoSpans(bytes, lanes, Shape())),
        counted_(spans_.size() - 1),
        queued_(stager.chunks.size()) {
    for (auto& bytes_done : counted_) bytes_done.store(0, std::memory_order_relaxed);
    for (auto& span : queued_) span.store(-1, std::memory_order_relaxed);
  }

  size_t span_count() const { return spans_.size() - 1; }
  size_t piece_count() const { return spans_.back().first_piece; }

  // Queues span i's DMA through its chunk (device->host: fetching it; host->device: once filled).
  rmmjs_status QueueDma(size_t i) {
    const rmmjs_driver_api* cu = DriverApi();
    const Span& span = spans_[i];
    const size_t slot = i % stager_.chunks.size();
    auto device = DevicePtr(device_ptr_ + span.start);
    auto chunk = DevicePtr(stager_.chunks[slot]);
    if (direction_ == CopyDirection::kHostToDevice) {
      RMMJS_TRY(CheckCuda(cu->cuMemcpyAsync(device, chunk, span.length, stager_.stream), "cuMemcpyAsync"));
    } else {
      RMMJS_TRY(CheckCuda(cu->cuMemcpyAsync(chunk, device, span.length, stager_.stream), "cuMemcpyAsync"));
    }
    RMMJS_TRY(CheckCuda(cu->cuEventRecord(stager_.done[slot], stager_.stream), "cuEventRecord"));
    queued_[slot].store(static_cast<int64_t>(i), std::memory_order_release);
    WakeWaiters();
    return RMMJS_OK;
  }

  // One lane: pieces in address order until none is left (or another lane failed).
  rmmjs_status RunLane() {
    const rmmjs_driver_api* cu = DriverApi();
    const bool to_device = direction_ == CopyDirection::kHostToDevice;
    auto* copy = (to_device ? Shape().streaming_to_device : Shape().streaming_to_host) ? StreamingCopy : std::memcpy;
    const size_t depth = stager_.chunks.size();
    size_t i = 0;  // the span of the piece in hand; pieces only move forward
    for (;;) {
      const size_t index = next_piece_.fetch_add(1, std::memory_order_relaxed);
      if (index >= piece_count()) return RMMJS_OK;
      while (spans_[i + 1].first_piece <= index) i++;
      const Span& span = spans_[i];
      const size_t offset = (index - span.first_piece) * span.piece;
      const size_t length = std::min(span.piece, span.length - offset);
      const size_t slot = i % depth;
      char* pinned = static_cast<char*>(stager_.chunks[slot]) + offset;
      char* host = host_ptr_ + span.start + offset;
      if (to_device) {
        if (i >= depth) {
          if (!AwaitQueued(slot, i - depth)) return RMMJS_OK;
          RMMJS_TRY(CheckCuda(cu->cuEventSynchronize(stager_.done[slot]), "cuEventSynchronize"));  // chunk free
        }
        copy(pinned, host, length);
      } else {
        PrepareDestination(host, length);
        if (!AwaitQueued(slot, i)) return RMMJS_OK;
        RMMJS_TRY(CheckCuda(cu->cuEventSynchronize(stager_.done[slot]), "cuEventSynchronize"));  // chunk fetched
        copy(host, pinned, length);
      }
      // The lane that completes a span moves it on: its DMA, or (device->host) the fetch of the
      // span that uses its chunk next.
      if (counted_[i].fetch_add(length, std::memory_order_acq_rel) + length == span.length) {
        if (to_device) {
          RMMJS_TRY(QueueDma(i));
        } else if (i + depth < span_count()) {
          RMMJS_TRY(QueueDma(i + depth));
        }
      }
    }
  }

  // A lane (or the caller, queueing the first fetches) failed: no more pieces, the waiting lanes
  // return, and the copy reports the first failure rather than finish. `message` null: out of host
  // memory (nothing more to say, and no memory to say it with).
  void Fail(rmmjs_status status, int cuda_code, const char* message) noexcept {
    {
      std::lock_guard<std::mutex> lock(wait_mutex_);
      if (!failed_.load(std::memory_order_relaxed)) {
        status_ = status;
        cuda_code_ = cuda_code;
        try {
          message_ = message != nullptr ? message : "";
        } catch (...) {  // no memory to keep the message: that is what is reported
          message_.clear();
        }
        failed_.store(true, std::memory_order_relaxed);
      }
    }
    next_piece_.store(piece_count(), std::memory_order_relaxed);
    queued_or_failed_.notify_all();
  }

  bool failed() const { return failed_.load(std::memory_order_relaxed); }

  // Sets the first failure's error on the calling thread (once the lanes are done) and returns it.
  rmmjs_status Report() {
    if (message_.empty()) return FailOutOfHostMemory("a staged copy");
    return SetError(status_, cuda_code_, std::move(message_));
  }

 private:
  // Waits until span `i`'s DMA was queued in `slot` (spans of a chunk are queued in order, each
  // only after the one before it was filled or emptied); false if another lane failed meanwhile.
  // Usually short: the lanes finishing that span's other pieces (host->device), or the DMA of the
  // span before it in the chunk and its emptying (device->host); so it spins, then yields, and only
  // a wait of over a millisecond (the caller's stream still busy with earlier work) sleeps.
  bool AwaitQueued(size_t slot, size_t i) {
    auto ready = [&] { return queued_[slot].load(std::memory_order_acquire) >= static_cast<int64_t>(i); };
    auto failed = [&] { return failed_.load(std::memory_order_relaxed); };
    std::chrono::steady_clock::time_point sleep_after;
    for (unsigned spins = 0; !ready(); spins++) {
      if (failed()) return false;
      if (spins < 64) {
        CpuRelax();
        continue;
      }
      if (spins == 64) sleep_after = std::chrono::steady_clock::now() + std::chrono::milliseconds(1);
      if (spins % 64 == 0 && std::chrono::steady_clock::now() >= sleep_after) {
        std::unique_lock<std::mutex> lock(wait_mutex_);
        queued_or_failed_.wait(lock, [&] { return ready() || failed(); });
        return !failed();
      }
      std::this_thread::yield();
    }
    return true;
  }

  // Wakes the lanes sleeping in AwaitQueued (the mutex orders this after a sleeper's last check;
  // Fail sets its flag under it).
  void WakeWaiters() {
    { std::lock_guard<std::mutex> lock(wait_mutex_); }
    queued_or_failed_.notify_all();
  }

  const CopyDirection direction_;
  DeviceStager& stager_;
  char* const device_ptr_;
  char* const host_ptr_;
  const std::vector<Span> spans_;
  std::vector<std::atomic<size_t>> counted_;  // per span: bytes filled (host->device) or emptied
  std::vector<std::atomic<int64_t>> queued_;  // per chunk: the last span whose DMA was queued in it
  std::atomic<size_t> next_piece_{0};
  std::atomic<bool> failed_{false};  // set once, under wait_mutex_, with the failure below
  rmmjs_status status_ = RMMJS_OK;
  int cuda_code_ = 0;
  std::string message_;
  std::mutex wait_mutex_;
  std::condition_variable queued_or_failed_;
};

// Synchronizes the ring's stream when a copy ends, however it ends (an error, an exception): the
// chunks are used again by the next copy.
class SynchronizeAtEnd {
 public:
  explicit SynchronizeAtEnd(rmmjs_CUstream stream) : stream_(stream) {}
  SynchronizeAtEnd(const SynchronizeAtEnd&) = delete;
  SynchronizeAtEnd& operator=(const SynchronizeAtEnd&) = delete;
  ~SynchronizeAtEnd() {
    if (stream_ != nullptr) DriverApi()->cuStreamSynchronize(stream_);
  }
  int Now() { return DriverApi()->cuStreamSynchronize(std::exchange(stream_, nullptr)); }

 private:
  rmmjs_CUstream stream_;
};

rmmjs_status CopyThroughRing(CopyDirection direction, DeviceStager& stager, void* device_ptr, void* host_ptr,
                             size_t bytes, rmmjs_stream stream, int device) {
  const rmmjs_driver_api* cu = DriverApi();
  ContextScope scope(device);
  RMMJS_TRY(scope.status());
  StagedCopyState state(direction, stager, static_cast<char*>(device_ptr), static_cast<char*>(host_ptr), bytes,
                        static_cast<size_t>(Shape().lanes));
  const std::function<void(int)> lane = [&](int) {
    // Nothing may escape a staging thread (it would end the process): a CUDA error's message that
    // cannot be made is reported as out of host memory.
    rmmjs_status status = RMMJS_OK;
    bool out_of_memory = false;
    try {
      ContextScope lane_scope(device);
      status = lane_scope.status() != RMMJS_OK ? lane_scope.status() : state.RunLane();
    } catch (...) {
      status = RMMJS_ERR_OUT_OF_MEMORY;
      out_of_memory = true;
    }
    // ErrorMessage() is thread-local: carry it to the calling thread.
    if (status != RMMJS_OK)
      state.Fail(status, out_of_memory ? 0 : ErrorCudaCode(), out_of_memory ? nullptr : ErrorMessage());
  };
  // Order the DMAs after the work already queued on the caller's stream.
  RMMJS_TRY(CheckCuda(cu->cuEventRecord(stager.start, reinterpret_cast<rmmjs_CUstream>(stream)), "cuEventRecord"));
  RMMJS_TRY(CheckCuda(cu->cuStreamWaitEvent(stager.stream, stager.start, 0), "cuStreamWaitEvent"));
  // From the first DMA on, no early return: the stream is synchronized before the copy ends.
  SynchronizeAtEnd synchronize(stager.stream);
  if (direction == CopyDirection::kDeviceToHost) {
    // Every chunk starts fetching its first span.
    for (size_t i = 0; i < std::min(state.span_count(), stager.chunks.size()); i++) {
      rmmjs_status queued = state.QueueDma(i);
      if (queued != RMMJS_OK) {
        state.Fail(queued, ErrorCudaCode(), ErrorMessage());
        break;
      }
    }
  }
  // Large copies often come one after another (a loop over a dataset): the lanes stay awake a
  // little past this one, so that the next one's first span does not wait for them to wake.
  ParallelForAwake awake(kLanesLinger);
  if (!state.failed()) {
    ParallelFor(static_cast<int>(std::min<size_t>(static_cast<size_t>(Shape().lanes), state.piece_count())), lane);
  }
  int synchronized = synchronize.Now();
  if (state.failed()) return state.Report();
  if (synchronized != RMMJS_CUDA_SUCCESS) return CudaFailure(synchronized, "cuStreamSynchronize");
  return RMMJS_OK;
}

}  // namespace

rmmjs_status SetStagingShape(const StagingOverrides& overrides) {
  RMMJS_TRY(CheckRange("shape.chunkBytes", overrides.chunk_bytes, kGranule, kMostBytes));
  RMMJS_TRY(CheckRange("shape.depth", overrides.depth, 1, 64));
  RMMJS_TRY(CheckRange("shape.pieceBytes", overrides.piece_bytes, kGranule, kMostBytes));
  RMMJS_TRY(CheckRange("shape.lanes", overrides.lanes, 1, 64));
  RMMJS_TRY(CheckRange("shape.stores", overrides.stores, 0, 3));
  RMMJS_TRY(CheckRange("shape.smallestSpan", overrides.smallest_span, kGranule, kMostBytes));
  std::lock_guard<std::mutex> lock(g_shape_mutex);
  if (g_shape_fixed) {
    return SetError(RMMJS_ERR_LOGIC,
                    "setStagingShape: the first staged copy of this process fixed the staging's shape already");
  }
  g_overrides = overrides;
  return RMMJS_OK;
}

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
  // A std::bad_alloc (host memory) anywhere on the calling thread is an error, not the end of the
  // process; the lanes catch their own.
  return GuardHostMemory("a staged copy", [&] {
    DeviceStager& stager = StagerFor(device);
    std::lock_guard<std::mutex> lock(stager.mutex);
    if (!stager.created && Create(stager, device) != RMMJS_OK) {
      Log(RMMJS_LOG_WARN, std::string("the pinned staging buffers for host copies could not be made (tried again "
                                      "by the next large copy); this copy goes unstaged: ") +
                              ErrorMessage());
      return UnstagedCopy(direction, device_ptr, host_ptr, bytes, stream, device);
    }
    return CopyThroughRing(direction, stager, device_ptr, host_ptr, bytes, stream, device);
  });
}

}  // namespace rmmjs
