// The file a LoggingResourceAdaptor writes: RMM's CSV log (header
// "Thread,Time,Action,Pointer,Size,Stream", then one row per event), buffered in memory and written
// in order from any thread. A row costs a spin lock and a copy; full chunks go to the file in the
// order they filled. Every open log is flushed when the process exits normally.
#pragma once

#include <atomic>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "rmmjs/abi.h"
#include "rmmjs/spin_lock.hpp"

namespace rmmjs {

class CsvLog {
 public:
  // Opens (truncates) path and writes the header. auto_flush writes every row at once (RMM's
  // auto_flush: flush_on(info)).
  static rmmjs_status Open(const std::string& path, bool auto_flush, std::shared_ptr<CsvLog>* out);
  ~CsvLog();
  CsvLog(const CsvLog&) = delete;
  CsvLog& operator=(const CsvLog&) = delete;

  // Appends one row (with its '\n'); never fails (a write error is reported by Flush).
  void Append(const char* row, size_t length);
  // Writes what is buffered to the file; RMMJS_ERR_LOGIC when a write failed since the last Flush.
  rmmjs_status Flush();
  // Flush without the error report: touches no thread-local state, so it can run at exit.
  void WriteBuffered();
  const std::string& path() const { return path_; }

 private:
  struct Chunk {
    std::unique_ptr<char[]> data;
    size_t used = 0;
  };
  static constexpr size_t kChunkSize = 64 * 1024;

  CsvLog(std::string path, int fd, bool auto_flush);
  // A chunk from spare_ or a new one (empty data when out of host memory).
  Chunk NewChunkLocked();
  void NoteError(int error);
  // Writes the full chunks, oldest first (file_mutex_ held).
  void DrainLocked();
  void WriteAll(const char* data, size_t length);

  const std::string path_;
  const int fd_;
  const bool auto_flush_;

  SpinLock append_lock_;  // guards current_, full_, spare_
  Chunk current_;
  std::deque<Chunk> full_;
  std::vector<Chunk> spare_;

  std::mutex file_mutex_;          // one writer at a time, so chunks reach the file in order
  std::atomic<int> error_{0};      // errno of the first failure since the last Flush
};

}  // namespace rmmjs
