#include "logging_resource_adaptor.h"

namespace rmmjs {

rmmjs_status LoggingResourceAdaptor::Allocate(size_t bytes, rmmjs_stream stream, void** out) {
  rmmjs_status status = CoreApi()->allocate(upstream_.get(), bytes, stream, out);
  if (status == RMMJS_OK) {
    log_->Record(LogAction::kAllocate, *out, bytes, stream);
  } else {
    log_->Record(LogAction::kAllocateFailure, nullptr, bytes, stream);
  }
  return status;
}

rmmjs_status LoggingResourceAdaptor::Deallocate(void* ptr, size_t bytes, rmmjs_stream stream) {
  log_->Record(LogAction::kFree, ptr, bytes, stream);
  return CoreApi()->deallocate(upstream_.get(), ptr, bytes, stream);
}

}  // namespace rmmjs
