// The file a LoggingResourceAdaptor writes: RMM's CSV log (the header
// "Thread,Time,Action,Pointer,Size,Stream", then one row per event, csv_rows.h).
//
// Logging is on every allocation's path, so an event costs the allocating thread only a clock
// read and a 40-byte record copied under a spin lock into 64 KiB chunks. Full chunks are turned
// into text and written by a background thread (background_writer.h), in the order they filled;
// a thread whose log has too many chunks waiting writes them itself. flush() writes everything
// buffered, and every open log is written out when the process exits normally.
#pragma once

#include <time.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "csv_rows.h"
#include "rmmjs/abi.h"
#include "rmmjs/log_format.hpp"
#include "rmmjs/spin_lock.hpp"

namespace rmmjs {

// Whether the CPU has PREFETCHW (x86-64's prefetch for writing, which fetches a line to be owned
// rather than shared). Compilers emit it only for targets that are known to have it.
extern const bool kCpuHasPrefetchW;

// Asks for the cache line at address, to be written soon.
inline void PrefetchForWriting(const void* address) {
#if defined(__x86_64__)
  if (kCpuHasPrefetchW) {
    asm volatile("prefetchw %0" : : "m"(*static_cast<const char*>(address)));
    return;
  }
#endif
  __builtin_prefetch(address, 1);
}

class CsvLog : public std::enable_shared_from_this<CsvLog> {
 public:
  // Opens (truncates) path and writes the header. auto_flush writes every row at once (RMM's
  // auto_flush: flush_on(info)).
  static rmmjs_status Open(const std::string& path, bool auto_flush, std::shared_ptr<CsvLog>* out);
  ~CsvLog();
  CsvLog(const CsvLog&) = delete;
  CsvLog& operator=(const CsvLog&) = delete;

  // Records one event (now, on this thread); never fails: an error is reported by Flush.
  void Record(LogAction action, const void* pointer, size_t size, rmmjs_stream stream) {
    timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    const int64_t micros = static_cast<int64_t>(now.tv_sec) * 1000000 + now.tv_nsec / 1000;
    const auto thread = static_cast<uint32_t>(log_format::ThreadId());
    bool recorded = false;
    {
      std::lock_guard<SpinLock> lock(append_lock_);
      if (current_.used < kEventsPerChunk) {
        // Field by field: a record built aside and copied would be read back in 16-byte pieces
        // that the CPU cannot forward from the 8-byte stores that wrote it.
        LogEvent& event = current_.events[current_.used++];
        event.micros = micros;
        event.pointer = pointer;
        event.size = size;
        event.stream = stream;
        event.thread = thread;
        event.action = action;
        // The chunk was last read by the writer's core: asking for the lines ahead now keeps the
        // next events' stores (and the lock's barrier, which waits for them) from waiting on it.
        if (current_.used + kPrefetchAhead < kEventsPerChunk)
          PrefetchForWriting(&current_.events[current_.used + kPrefetchAhead]);
        recorded = true;
      }
    }
    if (!recorded) {
      RecordInNewChunk(LogEvent{micros, pointer, size, stream, thread, action});
    } else if (auto_flush_) {
      WriteBuffered();
    }
  }
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
  static constexpr size_t kPrefetchAhead = 8;  // events: 5 cache lines
  // Chunks waiting for the background writer before an allocating thread writes them itself.
  static constexpr size_t kMaxWaitingChunks = 64;

  CsvLog(std::string path, int fd, bool auto_flush);
  // Record's path when the current chunk is full: the next chunk, and the writer told.
  void RecordInNewChunk(const LogEvent& event);
  // A chunk from spare_ or a new one (no events array when out of host memory).
  Chunk NewChunkLocked();
  // Moves current_ to full_; false (current_ untouched) when out of host memory.
  bool PushFullLocked();
  void NoteError(int error);
  // With file_mutex_ held: the full chunks as text, oldest first.
  void WriteFullChunksLocked();
  void WriteChunk(const Chunk& chunk);
  void WriteAll(const char* data, size_t length);

  const std::string path_;
  const int fd_;
  const bool auto_flush_;

  // What every event touches, on a cache line of its own.
  alignas(64) SpinLock append_lock_;  // guards current_, full_, spare_, queued_
  Chunk current_;
  std::deque<Chunk> full_;
  std::vector<Chunk> spare_;
  bool queued_ = false;  // the background writer has been asked to write full_ and has not found it empty

  alignas(64) std::mutex file_mutex_;  // one writer at a time, so chunks reach the file in order; guards below
  bool closed_ = false;
  CsvRows rows_;
  std::vector<char> text_;
  std::atomic<int> error_{0};  // errno of the first failure since the last Flush
};

}  // namespace rmmjs
