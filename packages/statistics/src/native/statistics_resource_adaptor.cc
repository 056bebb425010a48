#include "statistics_resource_adaptor.h"

#include "rmmjs/status.hpp"

namespace rmmjs {

rmmjs_status StatisticsResourceAdaptor::Allocate(size_t bytes, rmmjs_stream stream, void** out) {
  RMMJS_TRY(CoreApi()->allocate(upstream_.get(), bytes, stream, out));
  CountAllocation(bytes);
  return RMMJS_OK;
}

rmmjs_status StatisticsResourceAdaptor::Deallocate(void* ptr, size_t bytes, rmmjs_stream stream) {
  CountFree(bytes);
  rmmjs_status status = CoreApi()->deallocate(upstream_.get(), ptr, bytes, stream);
  if (status != RMMJS_OK) UncountFree(bytes);  // the memory is still handed out (or was never ours)
  return status;
}

void StatisticsResourceAdaptor::CountAllocation(size_t bytes) {
  BiasedLock::Guard lock(lock_);
  Counters& top = stack_.back();
  top.bytes.Add(static_cast<int64_t>(bytes));
  top.allocations.Add(1);
}

void StatisticsResourceAdaptor::CountFree(size_t bytes) {
  BiasedLock::Guard lock(lock_);
  Counters& top = stack_.back();
  top.bytes.Subtract(static_cast<int64_t>(bytes));
  top.allocations.Subtract(1);
}

void StatisticsResourceAdaptor::UncountFree(size_t bytes) {
  BiasedLock::Guard lock(lock_);
  Counters& top = stack_.back();
  top.bytes.Restore(static_cast<int64_t>(bytes));
  top.allocations.Restore(1);
}

StatisticsResourceAdaptor::Counters StatisticsResourceAdaptor::Top() const {
  BiasedLock::Guard lock(lock_);
  return stack_.back();
}

rmmjs_status StatisticsResourceAdaptor::Push(Counters* top) {
  return GuardHostMemory(kTypeName, [&] {
    BiasedLock::Guard lock(lock_);
    *top = stack_.back();
    stack_.emplace_back();
    return RMMJS_OK;
  });
}

rmmjs_status StatisticsResourceAdaptor::Pop(Counters* popped) {
  {
    BiasedLock::Guard lock(lock_);
    if (stack_.size() >= 2) {
      *popped = stack_.back();
      stack_.pop_back();
      stack_.back().bytes.Merge(popped->bytes);
      stack_.back().allocations.Merge(popped->allocations);
      return RMMJS_OK;
    }
  }
  return Fail(RMMJS_ERR_OUT_OF_RANGE, "cannot pop the last counter pair");
}

}  // namespace rmmjs
