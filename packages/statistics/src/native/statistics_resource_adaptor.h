// RMM's statistics_resource_adaptor: counts the bytes and allocations its upstream hands out, on
// a stack of counter pairs. Each counter has a value, its peak and a running total; allocations
// add to the pair on top, frees subtract from it (so a pair can go negative when memory counted
// below it is freed). Popping merges the pair into the one under it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "rmmjs/abi.h"
#include "rmmjs/biased_lock.hpp"
#include "rmmjs/resource.hpp"

namespace rmmjs {

class StatisticsResourceAdaptor {
 public:
  static constexpr const char* kTypeName = "StatisticsResourceAdaptor";

  struct Counter {
    int64_t value = 0;
    int64_t peak = 0;
    int64_t total = 0;

    void Add(int64_t amount) {
      value += amount;
      total += amount;
      peak = std::max(value, peak);
    }
    void Subtract(int64_t amount) { value -= amount; }
    // Takes a Subtract back (the total does not grow: nothing new was allocated).
    void Restore(int64_t amount) {
      value += amount;
      peak = std::max(value, peak);
    }
    // RMM's add_counters_from_tracked_sub_block.
    void Merge(const Counter& child) {
      peak = std::max(value + child.peak, peak);
      value += child.value;
      total += child.total;
    }
  };

  struct Counters {
    Counter bytes;
    Counter allocations;
  };

  explicit StatisticsResourceAdaptor(ResourceRef upstream) : upstream_(std::move(upstream)), stack_(1) {}

  rmmjs_status Allocate(size_t bytes, rmmjs_stream stream, void** out);
  // Counted before the upstream frees the memory (so the counts never exceed what is handed out),
  // and counted back when the upstream refuses.
  rmmjs_status Deallocate(void* ptr, size_t bytes, rmmjs_stream stream);
  rmmjs_resource* Upstream() const { return upstream_.get(); }

  // What RMM counts for the calls the C ABI never passes on: an allocation of 0 bytes, a free
  // of a null pointer.
  void CountAllocation(size_t bytes);
  void CountFree(size_t bytes);

  Counters Top() const;
  // *top receives the pair on top, then a pair of zeros is pushed.
  rmmjs_status Push(Counters* top);
  // Pops the pair on top into *popped and merges it into the one below; RMMJS_ERR_OUT_OF_RANGE
  // when it is the last one.
  rmmjs_status Pop(Counters* popped);

 private:
  void UncountFree(size_t bytes);

  ResourceRef upstream_;
  // A few additions per call, never held across the upstream. Biased: the thread that uses the
  // adaptor alone (JavaScript's) takes it without an atomic.
  mutable BiasedLock lock_;
  std::vector<Counters> stack_;  // never empty
};

}  // namespace rmmjs
