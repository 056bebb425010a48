// The file a LoggingResourceAdaptor writes: RMM's CSV log (the header
// "Thread,Time,Action,Pointer,Size,Stream", then one row per event).
//
// Logging is on every allocation's path, so an event costs the allocating thread only a clock
// read and a copy of a fixed-size record under a spin lock, into 64 KiB chunks. Full chunks are
// turned into text and written by a background thread (background_writer.h), in the order they
// filled; a thread whose log has too many chunks waiting writes them itself. flush() writes
// everything buffered, and every open log is written out when the process exits normally.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "rmmjs/abi.h"
#include "rmmjs/log_format.hpp"
#include "rmmjs/spin_lock.hpp"

namespace rmmjs {

enum class LogAction : uint8_t { kAllocate, kAllocateFailure, kFree };

// One row, as recorded on the allocating thread.
struct LogEvent {
  log_format::Timestamp time;
  uint64_t thread;
  const void* pointer;
  size_t size;
  rmmjs_stream stream;
  LogAction action;
};

class CsvLog : public std::enable_shared_from_this<CsvLog> {
 public:
  // Opens (truncates) path and writes the header. auto_flush writes every row at once (RMM's
  // auto_flush: flush_on(info)).
  static rmmjs_status Open(const std::string& path, bool auto_flush, std::shared_ptr<CsvLog>* out);
  ~CsvLog();
  CsvLog(const CsvLog&) = delete;
  CsvLog& operator=(const CsvLog&) = delete;

  // Records one event (now, on this thread); never fails: an error is reported by Flush.
  void Record(LogAction action, const void* pointer, size_t size, rmmjs_stream stream);
  // Writes everything recorded; RMMJS_ERR_LOGIC when a write failed since the last Flush.
  rmmjs_status Flush();
  // Writes everything recorded and closes the file; later events are dropped.
  void Close();
  // Writes the full chunks (the background writer's job).
  void WriteFullChunks();
  // Flush without the error report: touches no thread-local state, so it can run at exit.
  void WriteBuffered();
  const std::string& path() const { return path_; }

 private:
  struct Chunk {
    std::unique_ptr<LogEvent[]> events;
    size_t used = 0;
  };
  static constexpr size_t kEventsPerChunk = 64 * 1024 / sizeof(LogEvent);
  // Chunks waiting for the background writer before an allocating thread writes them itself.
  static constexpr size_t kMaxWaitingChunks = 64;

  CsvLog(std::string path, int fd, bool auto_flush);
  // A chunk from spare_ or a new one (no events array when out of host memory).
  Chunk NewChunkLocked();
  void NoteError(int error);
  // With file_mutex_ held: the full chunks as text, oldest first.
  void WriteFullChunksLocked();
  void WriteChunk(const Chunk& chunk);
  void WriteAll(const char* data, size_t length);

  const std::string path_;
  int fd_;
  const bool auto_flush_;

  SpinLock append_lock_;  // guards current_, full_, spare_
  Chunk current_;
  std::deque<Chunk> full_;
  std::vector<Chunk> spare_;

  std::mutex file_mutex_;  // one writer at a time, so chunks reach the file in order; guards below
  bool closed_ = false;
  log_format::TimeOfDay time_of_day_;
  std::vector<char> text_;
  std::atomic<int> error_{0};  // errno of the first failure since the last Flush
};

}  // namespace rmmjs
