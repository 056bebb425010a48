// Copies between pageable host memory and a device through pinned staging buffers. The driver
// stages pageable copies itself, on one thread, chunk after chunk (~8-10 GB/s on an H200 host);
// here a ring of pinned chunks overlaps the DMAs of some chunks with the host memcpys that fill or
// empty others, each chunk shared by several threads (lanes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "rmmjs/abi.h"

namespace rmmjs {

enum class CopyDirection { kHostToDevice, kDeviceToHost };

// Whether a copy of `bytes` to or from `host` is better staged: a GPU, a large copy, and host
// memory the driver does not know (pinned or managed memory goes straight to the DMA engine).
bool ShouldStage(const void* host, size_t bytes);

// The staging's shape (staged_copy.cc says what each member is); a member not given keeps its
// default.
struct StagingOverrides {
  std::optional<int64_t> chunk_bytes;
  std::optional<int64_t> depth;
  std::optional<int64_t> piece_bytes;
  std::optional<int64_t> lanes;
  std::optional<int64_t> stores;
  std::optional<int64_t> smallest_span;
};

// Sets the shape the first staged copy of the process makes the staging with (for tuning on a given
// machine, tooling/scripts/copy-sweep.mjs, and for the tests): RMMJS_ERR_OUT_OF_RANGE for a member
// out of range (nothing changes), RMMJS_ERR_LOGIC once that copy fixed the shape.
rmmjs_status SetStagingShape(const StagingOverrides& overrides);

// A synchronous copy (complete on return), ordered after the work queued on `stream` before it.
rmmjs_status StagedCopy(CopyDirection direction, void* device_ptr, void* host_ptr, size_t bytes, rmmjs_stream stream,
                        int device);

}  // namespace rmmjs
