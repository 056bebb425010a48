// RMM's arena_memory_resource_impl: the global arena, the per-thread arenas (the default streams)
// and the per-stream arenas (every other stream), defragmentation on failure, and the memory
// dump. Shared (std::shared_ptr) between the resource and the exit hooks of the threads that
// have an arena in it, so a thread that outlives the resource cleans nothing, and a resource
// that outlives a thread gets that thread's superblocks back when it exits. The resource closes it
// when its last reference goes (Close), so that the memory goes back upstream then, also while an
// exiting thread's hook still holds this object.
//
// No free waits for its stream (RMM synchronises it before memory reaches the global arena): memory
// that reaches the global arena carries the events of the streams it was freed on (rmmjs/stream_event.hpp),
// and a stream that takes it waits on those first. A block whose superblock sits in another arena
// is the exception: it is freed there after its stream synchronises, as in RMM.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "arena.h"
#include "global_arena.h"
#include "rmmjs/abi.h"
#include "rmmjs/pointer_table.hpp"
#include "rmmjs/resource.hpp"
#include "rmmjs/stream_event.hpp"
#include "rmmjs/stream_key.hpp"

namespace rmmjs::arena {

class ArenaMemoryResourceImpl : public std::enable_shared_from_this<ArenaMemoryResourceImpl> {
 public:
  ArenaMemoryResourceImpl(ResourceRef upstream, bool dump_log_on_failure);
  ArenaMemoryResourceImpl(const ArenaMemoryResourceImpl&) = delete;
  ArenaMemoryResourceImpl& operator=(const ArenaMemoryResourceImpl&) = delete;

  // Takes the global arena from upstream: arena_size bytes, or by default half the device's free
  // memory (in host mode: half the available host memory, at most 256 MiB), aligned down to 256.
  rmmjs_status Initialize(std::optional<std::size_t> arena_size);

  rmmjs_status Allocate(std::size_t bytes, rmmjs_stream stream, void** out);
  rmmjs_status Deallocate(void* ptr, std::size_t bytes, rmmjs_stream stream);
  rmmjs_resource* upstream() const { return upstream_.get(); }

  struct Summary {
    std::size_t arena_size;
    std::size_t thread_arenas;
    std::size_t stream_arenas;
    GlobalArena::Summary global;
  };
  // What is where now (arenaSummary() in JavaScript).
  Summary Summarize();

  // A thread that has an arena here exits: its superblocks go back to the global arena (nothing
  // once closed).
  void ThreadExited(std::thread::id thread);

  // The resource's last reference went: waits for the exit hooks in progress and for the frees
  // still in flight, then returns the upstream block and releases the upstream.
  void Close();

  // The key of the calling thread's arena, which serves the default streams.
  static constexpr StreamKey kThreadArena{StreamKind::kLegacy, 0};

 private:
  static StreamKey ArenaKey(const StreamKey& stream_key);
  rmmjs_status AllocateOnce(std::size_t size, const StreamKey& taker, rmmjs_stream stream, Block** out);
  rmmjs_status AllocateLarge(std::size_t size, const StreamKey& taker, rmmjs_stream stream, Block** out);
  rmmjs_status MeetStream(const StreamKey& key, rmmjs_stream stream);
  Arena* ArenaFor(const StreamKey& key, bool create);
  Arena* FindOrCreateArena(const StreamKey& key, bool create);
  std::vector<std::shared_ptr<Arena>> AllArenas();
  rmmjs_status Defragment();
  rmmjs_status SynchronizeStream(rmmjs_stream stream) const;
  // What a free on `stream` leaves behind: its stream's event, recorded (nothing once synchronised).
  // *freed_on points at it: the legacy stream's list, or *scratch.
  rmmjs_status FreedOnStream(const StreamKey& key, rmmjs_stream stream, FreedOn* scratch, const FreedOn** freed_on,
                             bool* synchronized);
  rmmjs_status FreeElsewhere(Block* block, const StreamKey& key, rmmjs_stream stream, bool synchronized,
                             FreeResult* result);
  void SynchronizeAll();
  void DumpMemoryLog(std::size_t bytes);

  ResourceRef upstream_;
  const int32_t device_;
  const bool cuda_;
  const bool dump_log_on_failure_;
  // Unique for the process's lifetime: the key of this resource's entries in the threads' caches.
  const std::uint64_t serial_;
  // Gives a handed-out block back to where it came from.
  rmmjs_status Release(Block* block, rmmjs_stream stream);
  rmmjs_status HandOut(Block* block, rmmjs_stream stream, void** out);

  GlobalArena global_;
  const std::shared_ptr<StreamEvent> legacy_event_;  // the legacy default stream's (recorded lazily)
  const FreedOn legacy_freed_on_;                    // a free on it, without a copy per free
  ShardedPointerTable<Block*> handed_out_;           // every block handed out: its record
  std::shared_mutex arenas_mutex_;
  std::unordered_map<std::thread::id, std::shared_ptr<Arena>> thread_arenas_;
  std::unordered_map<std::uint64_t, std::shared_ptr<Arena>> stream_arenas_;  // by stream id
  std::shared_mutex closing_mutex_;  // exit hooks (shared) against Close (exclusive)
  bool closed_ = false;              // guarded by closing_mutex_
};

}  // namespace rmmjs::arena
