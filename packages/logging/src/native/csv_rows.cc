#include "csv_rows.h"

#include <cstring>

namespace rmmjs {
namespace {

namespace fmt = log_format;

// The action between its two commas; the copies are of constant lengths.
char* AppendAction(char* out, LogAction action) {
  switch (action) {
    case LogAction::kAllocate:
      std::memcpy(out, ",allocate,", 10);
      return out + 10;
    case LogAction::kAllocateFailure:
      std::memcpy(out, ",allocate failure,", 18);
      return out + 18;
    case LogAction::kFree:
    default:
      std::memcpy(out, ",free,", 6);
      return out + 6;
  }
}

}  // namespace

char* CsvRows::Append(char* out, const LogEvent& event) {
  if (event.thread != thread_) {
    thread_ = event.thread;
    char* end = fmt::AppendDecimal(thread_text_, event.thread);
    *end++ = ',';
    thread_length_ = static_cast<size_t>(end - thread_text_);
  }
  std::memcpy(out, thread_text_, sizeof(thread_text_));  // a constant length; the rest is scratch
  out += thread_length_;
  const fmt::Timestamp time{event.micros / 1000000, static_cast<uint32_t>(event.micros % 1000000)};
  out = time_of_day_.Append(out, time, '.');
  out = AppendAction(out, event.action);
  out = fmt::AppendPointerWords(out, event.pointer);
  *out++ = ',';
  out = fmt::AppendDecimal(out, event.size);
  *out++ = ',';
  out = fmt::AppendHexWords(out, event.stream);
  *out++ = '\n';
  return out;
}

}  // namespace rmmjs
