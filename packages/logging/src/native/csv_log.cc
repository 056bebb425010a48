#include "csv_log.h"

#include <fcntl.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>
#include <set>
#include <utility>

#include "background_writer.h"
#include "rmmjs/log_file.hpp"
#include "rmmjs/status.hpp"

namespace rmmjs {

#if defined(__x86_64__)
const bool kCpuHasPrefetchW = [] {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid(0x80000001, &eax, &ebx, &ecx, &edx) && (ecx & bit_PRFCHW) != 0;
}();
#else
const bool kCpuHasPrefetchW = false;
#endif

namespace {

constexpr char kHeader[] = "Thread,Time,Action,Pointer,Size,Stream\n";

// The open logs, written out by an atexit handler: a log whose adaptor is still referenced when
// the process exits (the current device resource, say) loses no rows. Never destroyed.
struct OpenLogs {
  std::mutex mutex;
  std::set<CsvLog*> logs;
};

OpenLogs& TheOpenLogs() {
  static OpenLogs* open_logs = [] {
    auto* logs = new OpenLogs();
    std::atexit([] {
      OpenLogs& open = TheOpenLogs();
      std::lock_guard<std::mutex> lock(open.mutex);
      for (CsvLog* log : open.logs) log->WriteBuffered();
    });
    return logs;
  }();
  return *open_logs;
}

}  // namespace

rmmjs_status CsvLog::Open(const std::string& path, bool auto_flush, std::shared_ptr<CsvLog>* out) {
  std::string why;
  int fd = OpenLogFile(path.c_str(), &why);  // never blocks: a FIFO or a socket is refused
  if (fd < 0) {
    // spdlog's wording, which RMM reports.
    return Fail(RMMJS_ERR_LOGIC, "Failed opening file " + path + " for writing: " + why);
  }
  rmmjs_status status = GuardHostMemory("LoggingResourceAdaptor", [&] {
    std::shared_ptr<CsvLog> log(new CsvLog(path, fd, auto_flush));
    log->WriteAll(kHeader, sizeof(kHeader) - 1);
    *out = std::move(log);
    return RMMJS_OK;
  });
  if (status != RMMJS_OK) ::close(fd);
  return status;
}

CsvLog::CsvLog(std::string path, int fd, bool auto_flush)
    : path_(std::move(path)),
      fd_(fd),
      auto_flush_(auto_flush),
      current_{std::unique_ptr<LogEvent[]>(new LogEvent[kEventsPerChunk]), 0} {
  text_.resize(kEventsPerChunk * CsvRows::kMaxRowLength);
  OpenLogs& open = TheOpenLogs();
  std::lock_guard<std::mutex> lock(open.mutex);
  open.logs.insert(this);
}

CsvLog::~CsvLog() { Close(); }

void CsvLog::Close() {
  {
    OpenLogs& open = TheOpenLogs();
    std::lock_guard<std::mutex> lock(open.mutex);
    open.logs.erase(this);
  }
  WriteBuffered();
  std::lock_guard<std::mutex> lock(file_mutex_);
  if (closed_) return;
  closed_ = true;
  ::close(fd_);
}

CsvLog::Chunk CsvLog::NewChunkLocked() {
  if (!spare_.empty()) {
    Chunk chunk = std::move(spare_.back());
    spare_.pop_back();
    return chunk;
  }
  return Chunk{std::unique_ptr<LogEvent[]>(new (std::nothrow) LogEvent[kEventsPerChunk]), 0};
}

bool CsvLog::PushFullLocked() {
  try {
    full_.push_back(std::move(current_));
    return true;
  } catch (const std::bad_alloc&) {
    return false;  // nothing moved (push_back's strong guarantee)
  }
}

void CsvLog::NoteError(int error) {
  int none = 0;
  error_.compare_exchange_strong(none, error);
}

void CsvLog::RecordInNewChunk(const LogEvent& event) {
  size_t waiting = 0;
  bool wake = false;
  {
    std::lock_guard<SpinLock> lock(append_lock_);
    if (current_.used == kEventsPerChunk) {  // else another thread has begun the next chunk
      Chunk next = NewChunkLocked();
      if (!next.events || !PushFullLocked()) {
        NoteError(ENOMEM);  // the event is lost; Flush reports it
        return;
      }
      current_ = std::move(next);
      waiting = full_.size();
      wake = !queued_;
      queued_ = true;
    }
    current_.events[current_.used++] = event;
  }
  if (auto_flush_) {
    WriteBuffered();
  } else if (waiting > 0) {
    // The background writer writes the full chunks, unless too many wait (or there is no writer).
    if (waiting > kMaxWaitingChunks || (wake && !WakeBackgroundWriter(shared_from_this()))) WriteFullChunks();
  }
}

rmmjs_status CsvLog::Flush() {
  WriteBuffered();
  const int error = error_.exchange(0);
  if (error == 0) return RMMJS_OK;
  return Fail(RMMJS_ERR_LOGIC, "Failed writing to file " + path_ + ": " + std::strerror(error));
}

void CsvLog::WriteFullChunks() {
  std::lock_guard<std::mutex> lock(file_mutex_);
  WriteFullChunksLocked();
}

void CsvLog::WriteBuffered() {
  std::lock_guard<std::mutex> lock(file_mutex_);
  bool write_in_place = false;
  {
    std::lock_guard<SpinLock> append(append_lock_);
    if (current_.used > 0) {
      Chunk next = NewChunkLocked();
      if (next.events && PushFullLocked()) {
        current_ = std::move(next);
      } else {
        write_in_place = true;
      }
    }
  }
  WriteFullChunksLocked();
  if (write_in_place) {  // out of host memory: write the current chunk in place, recording waits
    std::lock_guard<SpinLock> append(append_lock_);
    if (full_.empty()) {  // else a chunk filled meanwhile: these events stay behind it
      WriteChunk(current_);
      current_.used = 0;
    }
  }
}

void CsvLog::WriteFullChunksLocked() {
  for (;;) {
    Chunk chunk;
    {
      std::lock_guard<SpinLock> lock(append_lock_);
      if (full_.empty()) {
        queued_ = false;  // a chunk that fills from now on asks the writer again
        return;
      }
      chunk = std::move(full_.front());
      full_.pop_front();
    }
    WriteChunk(chunk);
    chunk.used = 0;
    std::lock_guard<SpinLock> lock(append_lock_);
    try {
      spare_.push_back(std::move(chunk));
    } catch (const std::bad_alloc&) {
      // out of host memory: the chunk is freed instead of kept for reuse
    }
  }
}

void CsvLog::WriteChunk(const Chunk& chunk) {
  if (closed_) return;
  char* end = text_.data();
  for (size_t i = 0; i < chunk.used; i++) end = rows_.Append(end, chunk.events[i]);
  WriteAll(text_.data(), static_cast<size_t>(end - text_.data()));
}

void CsvLog::WriteAll(const char* data, size_t length) {
  while (length > 0) {
    ssize_t written = ::write(fd_, data, length);
    if (written < 0) {
      if (errno == EINTR) continue;
      NoteError(errno);
      return;
    }
    data += written;
    length -= static_cast<size_t>(written);
  }
}

}  // namespace rmmjs
