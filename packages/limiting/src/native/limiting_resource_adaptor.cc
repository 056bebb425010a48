#include "limiting_resource_adaptor.h"

#include <string>

#include "rmmjs/format.hpp"

namespace rmmjs {

rmmjs_status LimitingResourceAdaptor::Allocate(size_t bytes, rmmjs_stream stream, void** out) {
  size_t proposed = AlignUp(bytes, RMMJS_ALLOCATION_ALIGNMENT);
  size_t old = allocated_bytes_.fetch_add(proposed);
  if (old + proposed <= allocation_limit_) {
    rmmjs_status status = CoreApi()->allocate(upstream_.get(), bytes, stream, out);
    if (status != RMMJS_OK) allocated_bytes_ -= proposed;  // the upstream failed: roll back
    return status;
  }
  allocated_bytes_ -= proposed;
  std::string message = "Exceeded memory limit (failed to allocate " + FormatBytes(bytes) + ")";
  return CoreApi()->set_error(RMMJS_ERR_OUT_OF_MEMORY, 0, message.c_str());
}

rmmjs_status LimitingResourceAdaptor::Deallocate(void* ptr, size_t bytes, rmmjs_stream stream) {
  rmmjs_status status = CoreApi()->deallocate(upstream_.get(), ptr, bytes, stream);
  if (status == RMMJS_OK) allocated_bytes_ -= AlignUp(bytes, RMMJS_ALLOCATION_ALIGNMENT);
  return status;
}

}  // namespace rmmjs
