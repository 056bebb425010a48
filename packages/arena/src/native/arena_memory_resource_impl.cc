#include "arena_memory_resource_impl.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <new>
#include <string>

#include "rmmjs/format.hpp"
#include "rmmjs/status.hpp"

namespace rmmjs::arena {
namespace {

// The default arena size in host mode (no device memory to take half of).
constexpr std::size_t kHostDefaultArenaSize = std::size_t{256} << 20;

std::atomic<std::uint64_t> g_next_serial{1};

// Each thread remembers the arenas it used last, so the hot path finds its arena without a lock
// (a lookup under a shared lock would put every thread on one cache line). An entry is valid as
// long as its resource lives: arenas are removed only when their own thread exits, and serials
// are never reused.
struct CachedArena {
  std::uint64_t serial;
  StreamKey key;
  Arena* arena;
};
constexpr unsigned kCachedArenas = 8;
thread_local CachedArena t_cached_arenas[kCachedArenas] = {};
thread_local unsigned t_next_cached_arena = 0;
thread_local bool t_thread_exiting = false;

// Runs when the thread exits: returns its arenas' superblocks to the resources still alive.
struct ThreadExitHooks {
  std::vector<std::weak_ptr<ArenaMemoryResourceImpl>> resources;

  ~ThreadExitHooks() {
    t_thread_exiting = true;
    for (CachedArena& cached : t_cached_arenas) cached = {};
    std::thread::id thread = std::this_thread::get_id();
    for (auto& resource : resources) {
      if (auto impl = resource.lock()) impl->ThreadExited(thread);
    }
  }

  void Add(const std::shared_ptr<ArenaMemoryResourceImpl>& impl) {
    resources.erase(std::remove_if(resources.begin(), resources.end(), [](auto& weak) { return weak.expired(); }),
                    resources.end());
    for (auto& weak : resources) {
      if (weak.lock() == impl) return;
    }
    resources.push_back(impl);
  }
};
thread_local ThreadExitHooks t_exit_hooks;

rmmjs_status AllocationNotFound(FreeResult result) {
  return Fail(RMMJS_ERR_LOGIC,
              result == FreeResult::kNotAllocated
                  ? "allocation not found (part of it is free already: freed twice, or with the wrong size)"
                  : "allocation not found");
}

}  // namespace

ArenaMemoryResourceImpl::ArenaMemoryResourceImpl(ResourceRef upstream, bool dump_log_on_failure)
    : upstream_(std::move(upstream)),
      device_(upstream_.get()->device),
      cuda_(CoreApi()->cuda_available() != 0),
      dump_log_on_failure_(dump_log_on_failure),
      serial_(g_next_serial.fetch_add(1)),
      legacy_event_(std::make_shared<StreamEvent>(StreamKey{StreamKind::kLegacy, 0}, device_)),
      legacy_freed_on_(legacy_event_) {}

void ArenaMemoryResourceImpl::Close() {
  std::unique_lock<std::shared_mutex> closing(closing_mutex_);
  closed_ = true;
  if (global_.base() != nullptr) {
    if (cuda_) SynchronizeAll();
    if (CoreApi()->deallocate(upstream_.get(), global_.base(), global_.size(), 0) != RMMJS_OK) {
      LogAt(RMMJS_LOG_ERROR, "ArenaMemoryResource: returning memory upstream failed: " + LastErrorMessage());
    }
  }
  upstream_ = ResourceRef();
}

rmmjs_status ArenaMemoryResourceImpl::Initialize(std::optional<std::size_t> arena_size) {
  std::size_t size = 0;
  if (arena_size.has_value()) {
    size = *arena_size;
  } else {
    std::size_t free_bytes = 0;
    std::size_t total_bytes = 0;
    RMMJS_TRY(CoreApi()->mem_get_info(device_, &free_bytes, &total_bytes));
    size = free_bytes / 2;
    if (!cuda_) size = std::min(size, kHostDefaultArenaSize);
  }
  size = AlignDown(size, RMMJS_ALLOCATION_ALIGNMENT);
  if (size < kMinimumSuperblockSize) {
    return Fail(RMMJS_ERR_LOGIC, "Arena size smaller than minimum superblock size.");
  }
  void* block = nullptr;
  RMMJS_TRY(CoreApi()->allocate(upstream_.get(), size, 0, &block));
  global_.Initialize(static_cast<char*>(block), size);
  return RMMJS_OK;
}

rmmjs_status ArenaMemoryResourceImpl::Allocate(std::size_t bytes, rmmjs_stream stream, void** out) {
  *out = nullptr;
  if (bytes == 0) return RMMJS_OK;
  if (bytes > SIZE_MAX - RMMJS_ALLOCATION_ALIGNMENT) bytes = SIZE_MAX - RMMJS_ALLOCATION_ALIGNMENT;
  std::size_t size = AlignUp(bytes, RMMJS_ALLOCATION_ALIGNMENT);
  StreamKey taker;
  RMMJS_TRY(StreamKeyOf(stream, cuda_, &taker));
  RMMJS_TRY(MeetStream(taker, stream));
  Block* block = nullptr;
  RMMJS_TRY(AllocateOnce(size, taker, stream, &block));
  if (block != nullptr) return HandOut(block, stream, out);
  // RMM: every arena gives its superblocks back to the global arena, and one more try.
  RMMJS_TRY(Defragment());
  RMMJS_TRY(AllocateOnce(size, taker, stream, &block));
  if (block != nullptr) return HandOut(block, stream, out);
  if (dump_log_on_failure_) DumpMemoryLog(size);
  return Fail(RMMJS_ERR_OUT_OF_MEMORY,
              "Maximum pool size exceeded (failed to allocate " + FormatBytes(size) + "): No room in arena.");
}

rmmjs_status ArenaMemoryResourceImpl::AllocateOnce(std::size_t size, const StreamKey& taker, rmmjs_stream stream,
                                                   Block** out) {
  if (GlobalArena::Handles(size)) return AllocateLarge(size, taker, stream, out);
  return ArenaFor(ArenaKey(taker), true)->Allocate(size, taker, stream, out);
}

rmmjs_status ArenaMemoryResourceImpl::AllocateLarge(std::size_t size, const StreamKey& taker, rmmjs_stream stream,
                                                    Block** out) {
  FreedOn freed_on;
  *out = global_.Allocate(size, taker, &freed_on);
  if (*out == nullptr || freed_on.empty()) return RMMJS_OK;
  rmmjs_status status = freed_on.OrderBefore(taker, stream, device_);
  if (status == RMMJS_OK) return RMMJS_OK;
  global_.Free(*out, freed_on);  // back as it was
  *out = nullptr;
  return status;
}

// Remembers a block handed out, with its record: a free must name one as it was handed out (RMM's
// checks find a block whose range is free; a pointer inside a live block, or a live block with
// another size, would put memory still in use back among the free blocks), and the record leads
// the free to the block's neighbours and to the arena that holds it.
rmmjs_status ArenaMemoryResourceImpl::HandOut(Block* block, rmmjs_stream stream, void** out) {
  try {
    handed_out_.Insert(block->start, block);
  } catch (const std::bad_alloc&) {
    Release(block, stream);
    return Fail(RMMJS_ERR_OUT_OF_MEMORY, "ArenaMemoryResource: out of host memory");
  }
  *out = block->start;
  return RMMJS_OK;
}

rmmjs_status ArenaMemoryResourceImpl::Deallocate(void* pointer, std::size_t bytes, rmmjs_stream stream) {
  char* ptr = static_cast<char*>(pointer);
  if (ptr == nullptr || bytes == 0) return RMMJS_OK;  // as RMM
  if (bytes > SIZE_MAX - RMMJS_ALLOCATION_ALIGNMENT) return AllocationNotFound(FreeResult::kNotHere);
  std::size_t size = AlignUp(bytes, RMMJS_ALLOCATION_ALIGNMENT);
  Block* block = nullptr;
  if (!handed_out_.Take(ptr, &block)) return AllocationNotFound(FreeResult::kNotHere);
  // Back into the slot it just left (no allocation) when the block stays handed out. A record
  // handed out is ours alone (the table gave it to this call), so its size cannot change meanwhile.
  if (block->size != size) {
    handed_out_.Insert(ptr, block);
    return AllocationNotFound(FreeResult::kNotAllocated);
  }
  rmmjs_status status = RMMJS_OK;
  try {
    status = Release(block, stream);
  } catch (const std::bad_alloc&) {
    // Out of host memory for a stream's arena or a superblock's list of streams: thrown before
    // anything changed, so the block is still the caller's.
    status = Fail(RMMJS_ERR_OUT_OF_MEMORY, "ArenaMemoryResource: out of host memory");
  }
  if (status != RMMJS_OK) handed_out_.Insert(ptr, block);
  return status;
}

rmmjs_status ArenaMemoryResourceImpl::Release(Block* block, rmmjs_stream stream) {
  StreamKey key;
  RMMJS_TRY(StreamKeyOf(stream, cuda_, &key));
  RMMJS_TRY(MeetStream(key, stream));
  bool synchronized = !cuda_;  // host mode: no work in flight
  FreeResult result = FreeResult::kNotHere;
  if (GlobalArena::Handles(block->size)) {
    // A large block goes straight back to the global arena, carrying its stream's event (RMM
    // synchronises the stream first).
    FreedOn scratch;
    const FreedOn* freed_on = nullptr;
    RMMJS_TRY(FreedOnStream(key, stream, &scratch, &freed_on, &synchronized));
    result = global_.Free(block, *freed_on);
  }
  if (result == FreeResult::kNotHere) {
    if (Arena* arena = ArenaFor(ArenaKey(key), false)) RMMJS_TRY(arena->Free(block, stream, synchronized, &result));
  }
  if (result == FreeResult::kNotHere) RMMJS_TRY(FreeElsewhere(block, key, stream, synchronized, &result));
  return result == FreeResult::kFreed ? RMMJS_OK : AllocationNotFound(result);
}

rmmjs_status ArenaMemoryResourceImpl::FreedOnStream(const StreamKey& key, rmmjs_stream stream, FreedOn* scratch,
                                                    const FreedOn** freed_on, bool* synchronized) {
  *freed_on = scratch;
  if (*synchronized) return RMMJS_OK;
  if (key.kind == StreamKind::kLegacy) {
    *freed_on = &legacy_freed_on_;  // recorded when another stream takes the memory
    return RMMJS_OK;
  }
  const std::shared_ptr<StreamEvent>& event = ArenaFor(ArenaKey(key), true)->event();
  {
    DeviceContext context(device_);
    rmmjs_status status = context.status();
    if (status == RMMJS_OK) status = event->RecordFree(stream);
    if (status == RMMJS_OK) {
      *scratch = FreedOn(event);
      return RMMJS_OK;
    }
  }
  // No event: the stream's work is waited for here, as RMM does.
  RMMJS_TRY(SynchronizeStream(stream));
  *synchronized = true;
  return RMMJS_OK;
}

// A created stream's arena is made when the resource first meets the stream, after the check that
// the stream belongs to the device's primary context (the arena's event records on it): a stream
// of another context is refused before anything changes, and a known stream costs nothing.
rmmjs_status ArenaMemoryResourceImpl::MeetStream(const StreamKey& key, rmmjs_stream stream) {
  if (!cuda_ || key.kind != StreamKind::kCreated || ArenaFor(key, false) != nullptr) return RMMJS_OK;
  RMMJS_TRY(StreamEvent::CheckStream(key, stream, device_, cuda_));
  ArenaFor(key, true);
  return RMMJS_OK;
}

// The default streams use the calling thread's arena; any other stream an arena of its own, by its
// stream id: a new stream that gets a destroyed stream's handle does not inherit that stream's
// arena, whose frees may still be in flight.
StreamKey ArenaMemoryResourceImpl::ArenaKey(const StreamKey& stream_key) {
  return stream_key.kind == StreamKind::kCreated ? stream_key : kThreadArena;
}

Arena* ArenaMemoryResourceImpl::ArenaFor(const StreamKey& key, bool create) {
  for (const CachedArena& cached : t_cached_arenas) {
    if (cached.serial == serial_ && cached.key == key) return cached.arena;
  }
  Arena* arena = FindOrCreateArena(key, create);
  if (arena != nullptr) t_cached_arenas[t_next_cached_arena++ % kCachedArenas] = {serial_, key, arena};
  return arena;
}

Arena* ArenaMemoryResourceImpl::FindOrCreateArena(const StreamKey& key, bool create) {
  bool per_thread = key == kThreadArena;
  std::thread::id thread = std::this_thread::get_id();
  Arena* arena = nullptr;
  {
    std::shared_lock<std::shared_mutex> lock(arenas_mutex_);
    if (per_thread) {
      auto found = thread_arenas_.find(thread);
      if (found != thread_arenas_.end()) arena = found->second.get();
    } else {
      auto found = stream_arenas_.find(key.id);
      if (found != stream_arenas_.end()) arena = found->second.get();
    }
  }
  if (arena == nullptr && create) {
    // The arena's own stream: its created stream, or the thread's per-thread default stream.
    StreamKey own = per_thread ? StreamKey{StreamKind::kPerThread, ThisThreadNumber()} : key;
    auto made =
        std::make_shared<Arena>(global_, device_, cuda_, std::make_shared<StreamEvent>(own, device_), legacy_event_);
    std::unique_lock<std::shared_mutex> lock(arenas_mutex_);
    auto& slot = per_thread ? thread_arenas_[thread] : stream_arenas_[key.id];
    if (!slot) slot = std::move(made);
    arena = slot.get();
  }
  if (arena != nullptr && per_thread && !t_thread_exiting) t_exit_hooks.Add(shared_from_this());
  return arena;
}

std::vector<std::shared_ptr<Arena>> ArenaMemoryResourceImpl::AllArenas() {
  std::shared_lock<std::shared_mutex> lock(arenas_mutex_);
  std::vector<std::shared_ptr<Arena>> arenas;
  arenas.reserve(thread_arenas_.size() + stream_arenas_.size());
  for (auto& [thread, arena] : thread_arenas_) arenas.push_back(arena);
  for (auto& [id, arena] : stream_arenas_) arenas.push_back(arena);
  return arenas;
}

ArenaMemoryResourceImpl::Summary ArenaMemoryResourceImpl::Summarize() {
  Summary summary{global_.size(), 0, 0, global_.Summarize()};
  std::shared_lock<std::shared_mutex> lock(arenas_mutex_);
  summary.thread_arenas = thread_arenas_.size();
  summary.stream_arenas = stream_arenas_.size();
  return summary;
}

void ArenaMemoryResourceImpl::ThreadExited(std::thread::id thread) {
  std::shared_lock<std::shared_mutex> closing(closing_mutex_);  // Close waits for this
  if (closed_) return;
  std::shared_ptr<Arena> arena;
  {
    std::shared_lock<std::shared_mutex> lock(arenas_mutex_);
    auto found = thread_arenas_.find(thread);
    if (found == thread_arenas_.end()) return;
    arena = found->second;
  }
  // Cleaned while still listed, so that a search for one of its blocks never misses it; a
  // failure leaves the superblocks listed, for a later defragmentation.
  if (arena->Clean() != RMMJS_OK) return;
  std::unique_lock<std::shared_mutex> lock(arenas_mutex_);
  auto found = thread_arenas_.find(thread);
  if (found != thread_arenas_.end() && found->second == arena) thread_arenas_.erase(found);
}

rmmjs_status ArenaMemoryResourceImpl::Defragment() {
  for (const auto& arena : AllArenas()) RMMJS_TRY(arena->Clean());
  return RMMJS_OK;
}

rmmjs_status ArenaMemoryResourceImpl::SynchronizeStream(rmmjs_stream stream) const {
  if (!cuda_) return RMMJS_OK;
  DeviceContext context(device_);
  RMMJS_TRY(context.status());
  return CoreApi()->stream_synchronize(stream);
}

rmmjs_status ArenaMemoryResourceImpl::FreeElsewhere(Block* block, const StreamKey& key, rmmjs_stream stream,
                                                    bool synchronized, FreeResult* result) {
  FreedOn scratch;
  const FreedOn* freed_on = nullptr;
  // A superblock moving while this looks can be missed; a move is counted, and then it looks again.
  for (;;) {
    std::uint64_t moves = global_.moves();
    if (global_.Check(block) != FreeResult::kNotHere) {
      if (freed_on == nullptr) RMMJS_TRY(FreedOnStream(key, stream, &scratch, &freed_on, &synchronized));
      *result = global_.Free(block, *freed_on);
      if (*result != FreeResult::kNotHere) return RMMJS_OK;
    }
    // Another thread's or stream's arena reuses the block at once, so the stream's work must be
    // done first (as RMM does for every such free).
    if (!synchronized) {
      RMMJS_TRY(SynchronizeStream(stream));
      synchronized = true;
      scratch.Clear();
      freed_on = &scratch;
    }
    for (const auto& arena : AllArenas()) {
      RMMJS_TRY(arena->Free(block, 0, true, result));
      if (*result != FreeResult::kNotHere) return RMMJS_OK;
    }
    if (global_.moves() == moves) return RMMJS_OK;
  }
}

void ArenaMemoryResourceImpl::SynchronizeAll() {
  // The work queued before the frees must finish before the memory goes back upstream: the
  // arenas' frees join the global arena's, and the streams of all of them are waited for.
  rmmjs_status status = RMMJS_OK;
  for (const auto& arena : AllArenas()) {
    if (status == RMMJS_OK) status = arena->Clean();
  }
  if (status == RMMJS_OK) status = global_.FreedOnAll().Synchronize(device_);
  if (status != RMMJS_OK) {
    LogAt(RMMJS_LOG_ERROR, "ArenaMemoryResource: waiting for the streams failed: " + LastErrorMessage());
  }
}

void ArenaMemoryResourceImpl::DumpMemoryLog(std::size_t bytes) {
  const std::string stars(50, '*');
  LogAt(RMMJS_LOG_INFO, stars);
  LogAt(RMMJS_LOG_INFO, "Ran out of memory trying to allocate " + FormatBytes(bytes) + ".");
  LogAt(RMMJS_LOG_INFO, stars);
  LogAt(RMMJS_LOG_INFO, "Global arena:");
  global_.DumpMemoryLog();
  CoreApi()->log_flush();
}

}  // namespace rmmjs::arena
