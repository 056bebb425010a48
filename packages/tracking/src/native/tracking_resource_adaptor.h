// RMM's tracking_resource_adaptor: remembers every outstanding allocation (pointer, requested
// size, optionally the call stack) and can print or log the ones not yet freed.
//
// The map is core's ShardedPointerTable: allocate and deallocate lock one shard for a table insert
// or removal (a spin lock: the critical section is a few nanoseconds) and never hold it across
// the upstream call. Readers lock every shard, so they see one consistent snapshot, as RMM's
// shared lock gives. A pointer is tracked after the upstream returns it and forgotten before it
// goes back, so an address the upstream reuses at once is never seen twice (RMM's ABA rule). A
// deallocation the upstream refuses keeps the record (the memory is still allocated), unless the
// upstream says the pointer is not its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "call_stack.h"
#include "rmmjs/abi.h"
#include "rmmjs/pointer_table.hpp"
#include "rmmjs/resource.hpp"

namespace rmmjs {

struct AllocationRecord {
  size_t bytes = 0;
  const CallStack* stack = nullptr;  // one reference; null unless the adaptor captures stacks
};

struct RecordBytes {
  size_t operator()(const AllocationRecord& record) const { return record.bytes; }
};

class TrackingResourceAdaptor {
 public:
  static constexpr const char* kTypeName = "TrackingResourceAdaptor";

  TrackingResourceAdaptor(ResourceRef upstream, bool capture_stacks)
      : upstream_(std::move(upstream)), capture_stacks_(capture_stacks) {}
  TrackingResourceAdaptor(const TrackingResourceAdaptor&) = delete;
  TrackingResourceAdaptor& operator=(const TrackingResourceAdaptor&) = delete;
  ~TrackingResourceAdaptor();

  rmmjs_status Allocate(size_t bytes, rmmjs_stream stream, void** out);
  rmmjs_status Deallocate(void* ptr, size_t bytes, rmmjs_stream stream);
  rmmjs_resource* Upstream() const { return upstream_.get(); }

  // Requested bytes of the outstanding allocations.
  size_t allocated_bytes() const;
  size_t outstanding_count() const;
  // "<ptr>: <bytes> B\n" per allocation in address order, each followed by its stack when
  // stacks are captured; empty when nothing is outstanding.
  std::string outstanding_allocations_str() const;
  // RMM_LOG_DEBUG("Outstanding Allocations: %s", ...).
  void log_outstanding_allocations() const;

 private:
  // Records a new allocation: RMMJS_ERR_LOGIC when ptr is already tracked.
  rmmjs_status Track(void* ptr, size_t bytes);
  // Puts back the record of an allocation the upstream failed to free; false if it could not.
  bool Restore(void* ptr, const AllocationRecord& record);

  ResourceRef upstream_;
  bool capture_stacks_;
  // Its total weight is allocated_bytes(): summed under the shards' locks, so an allocation
  // costs no atomic of its own.
  ShardedPointerTable<AllocationRecord, RecordBytes> allocations_;
};

}  // namespace rmmjs
