// RMM's arena_memory_resource: a suballocator for low fragmentation and scalable concurrency.
// GPU memory is taken from the upstream once (the global arena), cut into superblocks that
// per-thread arenas (the default streams) and per-stream arenas (other streams) acquire, and
// served from those with best fit and coalescing; requests over 1 MiB come from the global arena.
// The state lives in ArenaMemoryResourceImpl (shared with the exit hooks of threads).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>

#include "arena_memory_resource_impl.h"
#include "rmmjs/abi.h"
#include "rmmjs/resource.hpp"

namespace rmmjs {

class ArenaMemoryResource {
 public:
  static constexpr const char* kTypeName = "ArenaMemoryResource";

  ArenaMemoryResource(ResourceRef upstream, std::optional<std::size_t> arena_size, bool dump_log_on_failure)
      : impl_(std::make_shared<arena::ArenaMemoryResourceImpl>(std::move(upstream), dump_log_on_failure)),
        arena_size_(arena_size) {}
  // The memory goes back upstream here, on the thread that lets go of the resource last, even
  // while an exiting thread's hook still holds impl_.
  ~ArenaMemoryResource() { impl_->Close(); }
  ArenaMemoryResource(const ArenaMemoryResource&) = delete;
  ArenaMemoryResource& operator=(const ArenaMemoryResource&) = delete;

  rmmjs_status Init(rmmjs_resource*) { return impl_->Initialize(arena_size_); }
  rmmjs_status Allocate(size_t bytes, rmmjs_stream stream, void** out) { return impl_->Allocate(bytes, stream, out); }
  rmmjs_status Deallocate(void* ptr, size_t bytes, rmmjs_stream stream) {
    return impl_->Deallocate(ptr, bytes, stream);
  }
  rmmjs_resource* Upstream() const { return impl_->upstream(); }
  arena::ArenaMemoryResourceImpl::Summary Summarize() const { return impl_->Summarize(); }

 private:
  std::shared_ptr<arena::ArenaMemoryResourceImpl> impl_;
  std::optional<std::size_t> arena_size_;
};

}  // namespace rmmjs
