#include "logging_resource_adaptor.h"

#include "rmmjs/log_format.hpp"

namespace rmmjs {
namespace {

constexpr char kAllocate[] = "allocate";
constexpr char kAllocateFailure[] = "allocate failure";
constexpr char kFree[] = "free";

}  // namespace

rmmjs_status LoggingResourceAdaptor::Allocate(size_t bytes, rmmjs_stream stream, void** out) {
  rmmjs_status status = CoreApi()->allocate(upstream_.get(), bytes, stream, out);
  if (status == RMMJS_OK) {
    Write(kAllocate, sizeof(kAllocate) - 1, *out, bytes, stream);
  } else {
    Write(kAllocateFailure, sizeof(kAllocateFailure) - 1, nullptr, bytes, stream);
  }
  return status;
}

rmmjs_status LoggingResourceAdaptor::Deallocate(void* ptr, size_t bytes, rmmjs_stream stream) {
  Write(kFree, sizeof(kFree) - 1, ptr, bytes, stream);
  return CoreApi()->deallocate(upstream_.get(), ptr, bytes, stream);
}

// One row, "%t,%H:%M:%S.%f,<action>,%p,%zu,<stream in hex>".
void LoggingResourceAdaptor::Write(const char* action, size_t action_length, const void* ptr, size_t bytes,
                                   rmmjs_stream stream) {
  namespace fmt = log_format;
  char row[128];  // 20 + 15 + 16 + 18 + 20 + 16 digits and 6 separators at most
  char* end = fmt::AppendDecimal(row, fmt::ThreadId());
  *end++ = ',';
  end = fmt::LocalTime::Now().Append(end, '.');
  *end++ = ',';
  end = fmt::AppendText(end, action, action_length);
  *end++ = ',';
  end = fmt::AppendPointer(end, ptr);
  *end++ = ',';
  end = fmt::AppendDecimal(end, bytes);
  *end++ = ',';
  end = fmt::AppendHex(end, stream);
  *end++ = '\n';
  log_->Append(row, static_cast<size_t>(end - row));
}

}  // namespace rmmjs
