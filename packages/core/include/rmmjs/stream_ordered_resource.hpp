// RMM's stream_ordered_memory_resource: the stream-ordered free lists that sub-allocators built on
// blocks (PoolMemoryResource, FixedSizeMemoryResource) share, over a policy that says what a block
// is and where new ones come from.
//
// Memory freed on stream A is reused on A at once, and on stream B after B waits on A's event:
// - Each stream has its own free list, by its StreamKey (rmmjs/stream_key.hpp: the stream id, never
//   the handle, which a destroyed stream's successor can get).
// - Each stream's event is a StreamEvent (rmmjs/stream_event.hpp). A free on a created stream or on
//   the per-thread default stream records that stream's event at once, as RMM does: the stream may
//   be destroyed before another stream takes the block. The legacy default stream is never
//   destroyed, so a free on it makes no driver call; its event is recorded when another stream takes
//   its blocks, and only when blocks were freed on it since the last record.
// - A created stream is checked once, when the resource first meets it (StreamEvent::CheckStream): a
//   stream of another device's context is refused before anything changes.
// - An allocation takes, in order: a block from its own stream's list; the best fit on another
//   stream's list, after waiting on that stream's event; other streams' whole lists moved onto its
//   own (after the waits), so that neighbours freed on different streams coalesce; new memory from
//   the policy's Grow.
// - In host mode all work is synchronous: no events, no waits.
// - On destruction the work queued before the frees is waited for, then the policy returns all
//   upstream memory, then the events are destroyed.
// One short lock guards the lists; event records and waits of the common paths, and the upstream
// calls of Grow, run without it.
//
// The policy (Blocks) says what a block is and where memory comes from, and picks the FreeList that
// holds one stream's free blocks: rmmjs/stream_ordered_policy.hpp says what it must have (checked at
// compile time). With caches (the policy's optional TakeHandedOut), a free that needs no driver call
// (on the legacy default stream, or any free in host mode) goes to the calling thread's cache, and
// an allocation of the same block size on the same stream takes it back from there, at once, as RMM
// reuses a block on the stream it was freed on. The caches are drained into the lists before the
// resource grows (and so before it reports out of memory), before a refused free is explained, and
// when it is destroyed; a thread that exits gives its blocks back.
//
// The resource is `using MyMemoryResource = StreamOrderedResource<MyBlocks>;`, made with
// NewResource (or js::CreateAdaptor), its upstream first.
#ifndef RMMJS_STREAM_ORDERED_RESOURCE_HPP
#define RMMJS_STREAM_ORDERED_RESOURCE_HPP

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>  // std::unique_lock
#include <new>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "rmmjs/abi.h"
#include "rmmjs/biased_lock.hpp"
#include "rmmjs/resource.hpp"
#include "rmmjs/status.hpp"
#include "rmmjs/stream_event.hpp"
#include "rmmjs/stream_key.hpp"
#include "rmmjs/stream_ordered_policy.hpp"
#include "rmmjs/thread_cache.hpp"

namespace rmmjs {
namespace stream_ordered {

// Work that may still use memory freed on a stream: its frees' event (the legacy default stream:
// that stream, synchronized).
struct PendingWork {
  StreamEvent* frees;
};

// One stream's free list and the event other streams wait on before they take from it.
template <class FreeList>
struct StreamState {
  static constexpr size_t kNoSlot = SIZE_MAX;
  // new_list() makes its (empty) list.
  template <class NewList>
  StreamState(const StreamKey& key, int32_t device, NewList&& new_list)
      : lazy(key.kind == StreamKind::kLegacy), free(new_list()), event(key, device) {}
  // First what allocations and frees touch.
  bool lazy;                       // the legacy default stream: recorded when another stream takes its blocks
  size_t nonempty_slot = kNoSlot;  // its place among the resource's lists that may hold blocks
  uint64_t frees = 0;              // times blocks were put on the list
  FreeList free;
  uint64_t recorded_frees = 0;  // lazy: the value of `frees` the event's last record covers
  StreamEvent event;            // recorded at each free (lazy: when another stream takes the blocks)
};

// What Blocks::Grow may use of the resource besides its own state.
template <class FreeList>
class Growth {
 public:
  using States = std::vector<std::unique_ptr<StreamState<FreeList>>>;
  Growth(std::unique_lock<BiasedLock>& lock, const States& states, int32_t device, bool stream_ordered)
      : lock_(lock), states_(states), device_(device), stream_ordered_(stream_ordered) {}

  // Around upstream calls, so that other threads keep using the free lists meanwhile.
  void Unlock() { lock_.unlock(); }
  void Relock() { lock_.lock(); }

  // Under the lock: what to wait for before the memory on `lists` goes back upstream.
  std::vector<PendingWork> WorkOn(const std::vector<FreeList*>& lists) const {
    std::vector<PendingWork> work;
    for (const auto& state : states_) {
      bool holds = false;
      for (const FreeList* list : lists) holds = holds || list == &state->free;
      if (!holds) continue;
      if (state->lazy ? state->frees != 0 : state->event.recorded()) work.push_back({&state->event});
    }
    return work;
  }

  // Without the lock: waits for that work (nothing to wait for in host mode).
  rmmjs_status WaitFor(const std::vector<PendingWork>& work) const {
    if (work.empty() || !stream_ordered_) return RMMJS_OK;
    DeviceContext context(device_);
    RMMJS_TRY(context.status());
    for (const PendingWork& pending : work) RMMJS_TRY(pending.frees->Synchronize());
    return RMMJS_OK;
  }

 private:
  std::unique_lock<BiasedLock>& lock_;
  const States& states_;
  int32_t device_;
  bool stream_ordered_;
};

}  // namespace stream_ordered

template <class Blocks>
class StreamOrderedResource {
  static_assert(stream_ordered::CheckedPolicy<Blocks>::value);

 public:
  static constexpr const char* kTypeName = Blocks::kTypeName;
  using FreeList = typename Blocks::FreeList;
  using Block = typename FreeList::Block;
  using Lock = std::unique_lock<BiasedLock>;
  using StreamState = stream_ordered::StreamState<FreeList>;
  using Growth = stream_ordered::Growth<FreeList>;
  static constexpr bool kCachesFrees = stream_ordered::kCachesFrees<Blocks>;

  template <class... Args>
  explicit StreamOrderedResource(ResourceRef upstream, Args&&... args)
      : device_(upstream.get()->device),
        stream_ordered_(CoreApi()->cuda_available() != 0),
        blocks_(std::move(upstream), std::forward<Args>(args)...) {
    states_.push_back(NewState(StreamKey{StreamKind::kLegacy, 0}));
    legacy_ = states_.back().get();
    nonempty_.reserve(1);
    if constexpr (kCachesFrees) caches_ = std::make_unique<ThreadCaches>(this, &ReturnFromExitingThread);
  }

  ~StreamOrderedResource() {
    // First, before anything goes: a thread that exits now hands its blocks back under its cache's
    // lock, which this waits for.
    if constexpr (kCachesFrees)
      caches_->DetachAll([&](const CachedBlock* blocks, size_t count) {
        // Under the lists' lock: a thread that exits meanwhile returns its own blocks under it.
        Lock lock(mutex_);
        ReturnToLists(blocks, count);
      });
    if (stream_ordered_) {
      // The work queued before the frees must finish before the memory goes back upstream.
      DeviceContext context(device_);
      for (const auto& state : states_) {
        if (state->lazy && state->frees == 0) continue;
        if (state->event.Synchronize() != RMMJS_OK) {
          LogAt(RMMJS_LOG_ERROR, std::string(kTypeName) + ": waiting for the streams failed: " + LastErrorMessage());
        }
      }
    }
    blocks_.Release();
    states_.clear();  // the events go (after the memory went back upstream)
  }
  StreamOrderedResource(const StreamOrderedResource&) = delete;
  StreamOrderedResource& operator=(const StreamOrderedResource&) = delete;

  rmmjs_status Init(rmmjs_resource*) {
    return GuardHostMemory(kTypeName, [&] {
      RMMJS_TRY(blocks_.Init(legacy_->free));
      MayHoldBlocks(*legacy_);
      return RMMJS_OK;
    });
  }

  rmmjs_status Allocate(size_t bytes, rmmjs_stream stream, void** out) try {
    size_t size = 0;
    RMMJS_TRY(blocks_.BlockSize(bytes, &size));
    StreamKey key;
    RMMJS_TRY(StreamKeyOf(stream, stream_ordered_, &key));  // may call the driver: before the lock
    if constexpr (kCachesFrees) {
      if (Caching(key)) {
        CachedBlock cached;
        if (caches_->Take(size, key, &cached)) {
          *out = reinterpret_cast<void*>(blocks_.HandOut(static_cast<Block>(cached.record)));
          return RMMJS_OK;
        }
      }
    }
    Lock lock = LockLists();
    StreamState* own = nullptr;
    RMMJS_TRY(MeetStream(lock, key, stream, &own));
    Block block = own->free.Take(size);
    if (!block) RMMJS_TRY(AllocateElsewhere(lock, *own, stream, size, &block));
    *out = reinterpret_cast<void*>(blocks_.HandOut(block));
    return RMMJS_OK;
  } catch (const std::bad_alloc&) {
    return FailOutOfHostMemory(kTypeName);
  }

  rmmjs_status Deallocate(void* pointer, size_t bytes, rmmjs_stream stream) try {
    if (bytes == 0) return RMMJS_OK;
    StreamKey key;
    RMMJS_TRY(StreamKeyOf(stream, stream_ordered_, &key));
    if constexpr (kCachesFrees) {
      if (Caching(key)) {
        CachedBlock cached{0, 0, key, nullptr};
        if (blocks_.TakeHandedOut(reinterpret_cast<uintptr_t>(pointer), bytes, &cached)) {
          if (caches_->Put(cached)) return RMMJS_OK;
          Lock lock(mutex_);  // the cache is full
          try {
            StreamState& own = StateOf(key);
            own.free.Insert(static_cast<Block>(cached.record));
            own.frees++;
            MayHoldBlocks(own);
          } catch (const std::bad_alloc&) {
            blocks_.HandOut(static_cast<Block>(cached.record));  // still the caller's, as it was
            throw;
          }
          return RMMJS_OK;
        }
        // Refused below; the cached blocks go back to the lists first, so that a block freed twice
        // is found free.
        DrainCaches();
      }
    }
    Lock lock = LockLists();
    StreamState* met = nullptr;
    RMMJS_TRY(MeetStream(lock, key, stream, &met));
    StreamState& own = *met;
    if (stream_ordered_ && !own.lazy) {
      // Recorded while the stream surely exists, and before the block is on the list, so that
      // whoever takes it waits on a record made after this free (outside the lock: a driver call).
      lock.unlock();
      {
        DeviceContext context(device_);  // native callers may come with none current
        RMMJS_TRY(context.status());
        RMMJS_TRY(own.event.RecordFree(stream));
      }
      lock.lock();
    }
    Block block{};
    RMMJS_TRY(blocks_.TakeBack(reinterpret_cast<uintptr_t>(pointer), bytes, &block));
    try {
      own.free.Insert(block);
    } catch (const std::bad_alloc&) {
      blocks_.HandOut(block);  // still the caller's, as it was
      throw;
    }
    own.frees++;
    MayHoldBlocks(own);
    return RMMJS_OK;
  } catch (const std::bad_alloc&) {
    return FailOutOfHostMemory(kTypeName);
  }

  rmmjs_resource* Upstream() const { return blocks_.Upstream(); }

  // Turns the per-thread caches on now, as the first contention would (for tests).
  void EnableThreadCaches() {
    if constexpr (kCachesFrees) contended_.store(true, std::memory_order_relaxed);
  }
  // How many freed blocks wait in threads' caches.
  size_t CachedBlocks() {
    if constexpr (kCachesFrees) return caches_->Count();
    return 0;
  }

  // fn(const Blocks&) under the lock: for the policy's own counters.
  template <class Fn>
  auto Inspect(Fn&& fn) {
    Lock lock(mutex_);
    return fn(static_cast<const Blocks&>(blocks_));
  }

 private:
  static constexpr size_t kNoSlot = StreamState::kNoSlot;
  static constexpr rmmjs_stream kLegacyStream = 0;

  // Whether a free on this stream may wait in a thread's cache: once threads met on the lock, and
  // when the free needs no driver call (no event to record).
  bool Caching(const StreamKey& key) const {
    return contended_.load(std::memory_order_relaxed) && (!stream_ordered_ || key.kind == StreamKind::kLegacy);
  }

  // The lock of the lists for allocate and deallocate; the first time a thread has to wait for it
  // turns the per-thread caches on.
  Lock LockLists() {
    bool waited = mutex_.lock_and_tell_if_waited();
    if constexpr (kCachesFrees) {
      if (waited) contended_.store(true, std::memory_order_relaxed);
    }
    return Lock(mutex_, std::adopt_lock);
  }

  // Every thread's cached blocks back onto the lists (without the lock held); how many there were.
  size_t DrainCaches() {
    return caches_->DrainAll([&](const CachedBlock* blocks, size_t count) {
      Lock lock(mutex_);
      ReturnToLists(blocks, count);
    });
  }

  static void ReturnFromExitingThread(void* self, const CachedBlock* blocks, size_t count) {
    auto* resource = static_cast<StreamOrderedResource*>(self);
    Lock lock(resource->mutex_);
    resource->ReturnToLists(blocks, count);
  }

  // Under the lock: cached blocks onto their streams' lists, as frees on those streams.
  void ReturnToLists(const CachedBlock* blocks, size_t count) noexcept {
    for (size_t i = 0; i < count; i++) {
      const CachedBlock& block = blocks[i];
      try {
        StreamState& state = StateOf(block.key);
        state.free.Insert(static_cast<Block>(block.record));
        state.frees++;
        MayHoldBlocks(state);
      } catch (const std::bad_alloc&) {
        try {
          LogAt(RMMJS_LOG_ERROR, std::string(kTypeName) + ": out of host memory: a free block of " +
                                     std::to_string(block.size) + " bytes is lost until the resource is destroyed");
        } catch (...) {  // no memory for the message either
        }
      }
    }
  }

  // Under the lock: the state of `stream` for an allocation or a free on it. A created stream is
  // checked (StreamEvent::CheckStream) the first time the resource meets it, without the lock and
  // before its state exists, so that a refused stream changes nothing and a known one costs nothing.
  rmmjs_status MeetStream(Lock& lock, const StreamKey& key, rmmjs_stream stream, StreamState** out) {
    if (stream_ordered_ && key.kind == StreamKind::kCreated && !(last_state_ != nullptr && key == last_key_) &&
        by_key_.find(key) == by_key_.end()) {
      lock.unlock();
      const rmmjs_status status = StreamEvent::CheckStream(key, stream, device_, stream_ordered_);
      lock.lock();
      RMMJS_TRY(status);
    }
    *out = &StateOf(key);
    return RMMJS_OK;
  }

  // The state of the stream with this key, created on first use (may throw std::bad_alloc).
  StreamState& StateOf(const StreamKey& key) {
    if (key.kind == StreamKind::kLegacy) return *legacy_;
    if (last_state_ != nullptr && key == last_key_) return *last_state_;
    auto [at, inserted] = by_key_.try_emplace(key, nullptr);
    if (inserted) {
      try {
        states_.push_back(NewState(key));
        nonempty_.reserve(states_.size());  // so that MayHoldBlocks never allocates
      } catch (...) {
        by_key_.erase(at);
        throw;
      }
      at->second = states_.back().get();
    }
    last_key_ = key;
    last_state_ = at->second;
    return *last_state_;
  }

  std::unique_ptr<StreamState> NewState(const StreamKey& key) {
    return std::make_unique<StreamState>(key, device_, [this] { return blocks_.NewFreeList(); });
  }

  // nonempty_ holds every list that has blocks (and maybe some that lost them since: the searches
  // drop those), so that a search for blocks on other streams looks only where there are some.
  void MayHoldBlocks(StreamState& state) {
    if (state.nonempty_slot != kNoSlot) return;
    state.nonempty_slot = nonempty_.size();
    nonempty_.push_back(&state);  // never allocates: room for every state is reserved
  }
  // Takes an empty list off nonempty_.
  void Forget(StreamState& state) {
    const size_t slot = state.nonempty_slot;
    StreamState* last = nonempty_.back();
    nonempty_[slot] = last;
    last->nonempty_slot = slot;
    nonempty_.pop_back();
    state.nonempty_slot = kNoSlot;
  }

  // Own stream's list had nothing: another stream's, then all lists merged, then new memory.
  // The block in *out is not handed out yet.
  rmmjs_status AllocateElsewhere(Lock& lock, StreamState& own, rmmjs_stream stream, size_t size, Block* out) {
    RMMJS_TRY(TakeFromOtherStream(lock, own, stream, size, out));
    if (*out) return RMMJS_OK;
    RMMJS_TRY(MergeOtherStreams(own, stream, size, out));
    if (*out) return RMMJS_OK;
    if constexpr (kCachesFrees) {
      // Before the resource grows (or gives up), the blocks that threads hold in their caches.
      if (contended_.load(std::memory_order_relaxed)) {
        lock.unlock();
        const size_t drained = DrainCaches();
        lock.lock();
        if (drained != 0) {
          *out = own.free.Take(size);
          if (*out) return RMMJS_OK;
          RMMJS_TRY(TakeFromOtherStream(lock, own, stream, size, out));
          if (*out) return RMMJS_OK;
          RMMJS_TRY(MergeOtherStreams(own, stream, size, out));
          if (*out) return RMMJS_OK;
        }
      }
    }
    Growth growth(lock, states_, device_, stream_ordered_);
    const rmmjs_status status = blocks_.Grow(growth, own.free, stream, size, out);
    MayHoldBlocks(own);
    return status;
  }

  // RMM's first pass: a block from another stream's list, after `stream` waits on that stream's
  // event. Here the best fit over all other lists (RMM takes the first list with any fit).
  rmmjs_status TakeFromOtherStream(Lock& lock, StreamState& own, rmmjs_stream stream, size_t size, Block* out) {
    StreamState* donor = nullptr;
    size_t donor_fit = 0;
    for (size_t i = 0; i < nonempty_.size();) {
      StreamState& other = *nonempty_[i];
      if (other.free.empty()) {
        Forget(other);  // the last list took its place at i
        continue;
      }
      i++;
      if (&other == &own) continue;
      const size_t fit = other.free.Fit(size);
      if (fit != 0 && (donor == nullptr || fit < donor_fit)) {
        donor = &other;
        donor_fit = fit;
        if (fit == size) break;
      }
    }
    if (donor == nullptr) return RMMJS_OK;
    const Block block = donor->free.Take(size);
    const bool record = stream_ordered_ && donor->lazy && donor->frees != donor->recorded_frees;
    if (!record && !(stream_ordered_ && donor->event.recorded())) {
      *out = block;  // nothing was queued on what it freed: no wait
      return RMMJS_OK;
    }
    const uint64_t covered = donor->frees;
    rmmjs_status status = RMMJS_OK;
    // The block is on no list now, so the driver calls can run without the lock.
    lock.unlock();
    {
      DeviceContext context(device_);
      status = context.status();
      if (status == RMMJS_OK && record) status = donor->event.Record(kLegacyStream);
      if (status == RMMJS_OK) status = donor->event.Wait(stream);
    }
    lock.lock();
    if (status != RMMJS_OK) return PutBack(*donor, block, status);
    if (record && covered > donor->recorded_frees) donor->recorded_frees = covered;
    *out = block;
    return RMMJS_OK;
  }

  // A block taken off donor's list goes back when ordering it after donor's work failed; returns
  // that failure.
  rmmjs_status PutBack(StreamState& donor, Block block, rmmjs_status failure) {
    const std::string message = LastErrorMessage();
    const int cuda_code = CoreApi()->error_cuda_code();
    const auto insert = [&] {
      donor.free.Insert(block);
      return RMMJS_OK;
    };
    if (GuardHostMemory(kTypeName, insert) != RMMJS_OK) {
      LogAt(RMMJS_LOG_ERROR,
            std::string(kTypeName) + ": a free block is lost until the resource is destroyed: " + LastErrorMessage());
      CoreApi()->set_error(failure, cuda_code, message.c_str());
    }
    MayHoldBlocks(donor);
    return failure;
  }

  // Makes `stream` wait for the work that last used the blocks of other (under the lock).
  rmmjs_status WaitForFreesOn(StreamState& other, rmmjs_stream stream) {
    const bool record = other.lazy && other.frees != other.recorded_frees;
    if (!record && !other.event.recorded()) return RMMJS_OK;
    DeviceContext context(device_);
    RMMJS_TRY(context.status());
    if (record) {
      RMMJS_TRY(other.event.Record(kLegacyStream));
      other.recorded_frees = other.frees;
    }
    return other.event.Wait(stream);
  }

  // RMM's second pass: other streams' whole lists move onto this stream's (after it waits on their
  // events), so that blocks freed on different streams coalesce, until a block fits. Skipped when
  // all free memory together is too small. Runs under the lock: the moved blocks are visible to
  // this stream's other users at once, so the waits must be queued first.
  rmmjs_status MergeOtherStreams(StreamState& own, rmmjs_stream stream, size_t size, Block* out) {
    size_t free_bytes = 0;
    for (const StreamState* state : nonempty_) free_bytes += state->free.free_bytes();
    if (free_bytes < size) return RMMJS_OK;
    for (size_t i = 0; i < nonempty_.size(); i++) {  // own may join at the end: it is skipped
      StreamState& other = *nonempty_[i];
      if (&other == &own || other.free.empty()) continue;
      if (stream_ordered_) {
        RMMJS_TRY(WaitForFreesOn(other, stream));
        // Whoever takes the moved blocks from this stream later must also wait for the wait just
        // queued: this stream's event is recorded again (the legacy stream's, when taken from).
        if (!own.lazy) {
          DeviceContext context(device_);
          RMMJS_TRY(context.status());
          RMMJS_TRY(own.event.Record(stream));
        }
      }
      other.free.MoveAllTo(own.free);
      own.frees++;
      MayHoldBlocks(own);
      *out = own.free.Take(size);
      if (*out) return RMMJS_OK;
    }
    return RMMJS_OK;
  }

  const int32_t device_;
  const bool stream_ordered_;  // false in host mode, where all work is synchronous
  // Threads have met on the lock: frees may wait in per-thread caches from then on. Until then the
  // resource behaves exactly as RMM's (best fit over coalesced blocks at every call).
  std::atomic<bool> contended_{false};
  std::unique_ptr<ThreadCaches> caches_;  // with a policy that supports them (kCachesFrees)
  Blocks blocks_;

  // On a cache line of its own: the threads served by their caches read the members above.
  // Biased: a resource one thread alone uses (JavaScript's, most often) locks without an atomic.
  alignas(64) BiasedLock mutex_;
  std::vector<std::unique_ptr<StreamState>> states_;  // in the order streams were first seen
  std::unordered_map<StreamKey, StreamState*, StreamKeyHash> by_key_;
  StreamState* legacy_ = nullptr;
  StreamKey last_key_{StreamKind::kLegacy, 0};
  StreamState* last_state_ = nullptr;
  std::vector<StreamState*> nonempty_;  // the states whose lists may hold blocks
};

}  // namespace rmmjs

#endif  // RMMJS_STREAM_ORDERED_RESOURCE_HPP
