// The rows of RMM's CSV log, from the events a CsvLog recorded:
//   "%t,%H:%M:%S.%f,<action>,%p,%zu,<stream in hex>\n"
// (spdlog's pattern: the OS thread id, the local time of day with microseconds; the pointer as
// printf's "%p", "(nil)" for a failure; the size in decimal; the stream in hex without a prefix).
#pragma once

#include <cstddef>
#include <cstdint>

#include "rmmjs/abi.h"
#include "rmmjs/log_format.hpp"

namespace rmmjs {

enum class LogAction : uint8_t { kAllocate, kAllocateFailure, kFree };

// One row, as recorded on the allocating thread: 40 bytes, so that a cache line holds more than
// one and a 64 KiB chunk 1,638.
struct LogEvent {
  int64_t micros;  // wall-clock time (CLOCK_REALTIME), microseconds since the epoch
  const void* pointer;
  size_t size;
  rmmjs_stream stream;
  uint32_t thread;  // gettid(), a pid_t
  LogAction action;
};

// Formats rows one after another. Not thread-safe: its owner serialises the calls (the time of
// day and the last thread's digits are cached between rows).
class CsvRows {
 public:
  // The longest row: a 10-digit thread, the 15-character time, "allocate failure", a pointer
  // of 18, a size of 20 and a stream of 16 characters, 5 commas and the newline.
  static constexpr size_t kMaxRowLength = 10 + 15 + 16 + 18 + 20 + 16 + 6;

  // Writes event's row at out; returns its end. Needs kMaxRowLength characters of room whatever
  // the row's length: fields are copied in whole words, and what lies past a field is scratch
  // (within the row's room: the thread's 16 bytes at its start, the hex fields' 16 at theirs).
  char* Append(char* out, const LogEvent& event);

 private:
  log_format::TimeOfDay time_of_day_;
  uint32_t thread_ = 0;   // no thread has id 0
  char thread_text_[16];  // thread_ in decimal, then ','
  size_t thread_length_ = 0;
};

}  // namespace rmmjs
