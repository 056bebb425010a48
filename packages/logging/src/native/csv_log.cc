#include "csv_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <set>
#include <new>
#include <utility>

#include "rmmjs/resource.hpp"
#include "rmmjs/status.hpp"

namespace rmmjs {
namespace {

constexpr char kHeader[] = "Thread,Time,Action,Pointer,Size,Stream\n";

// The open logs, flushed by an atexit handler: a log whose adaptor is still referenced when the
// process exits (the current device resource, say) loses no rows. Never destroyed.
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
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    // spdlog's wording, which RMM reports.
    return Fail(RMMJS_ERR_LOGIC, "Failed opening file " + path + " for writing: " + std::strerror(errno));
  }
  rmmjs_status status = GuardHostMemory("LoggingResourceAdaptor", [&] {
    std::shared_ptr<CsvLog> log(new CsvLog(path, fd, auto_flush));
    log->Append(kHeader, sizeof(kHeader) - 1);
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
      current_{std::unique_ptr<char[]>(new char[kChunkSize]), 0} {
  OpenLogs& open = TheOpenLogs();
  std::lock_guard<std::mutex> lock(open.mutex);
  open.logs.insert(this);
}

CsvLog::~CsvLog() {
  {
    OpenLogs& open = TheOpenLogs();
    std::lock_guard<std::mutex> lock(open.mutex);
    open.logs.erase(this);
  }
  WriteBuffered();
  ::close(fd_);
}

CsvLog::Chunk CsvLog::NewChunkLocked() {
  if (!spare_.empty()) {
    Chunk chunk = std::move(spare_.back());
    spare_.pop_back();
    return chunk;
  }
  return Chunk{std::unique_ptr<char[]>(new (std::nothrow) char[kChunkSize]), 0};
}

void CsvLog::NoteError(int error) {
  int none = 0;
  error_.compare_exchange_strong(none, error);
}

void CsvLog::Append(const char* row, size_t length) {
  bool chunk_filled = false;
  {
    std::lock_guard<SpinLock> lock(append_lock_);
    if (current_.used + length > kChunkSize) {
      Chunk next = NewChunkLocked();
      if (!next.data) {
        NoteError(ENOMEM);  // the row is lost; Flush reports it
        return;
      }
      full_.push_back(std::move(current_));
      current_ = std::move(next);
      chunk_filled = true;
    }
    std::memcpy(current_.data.get() + current_.used, row, length);
    current_.used += length;
  }
  if (auto_flush_) {
    WriteBuffered();
  } else if (chunk_filled) {
    std::lock_guard<std::mutex> lock(file_mutex_);
    DrainLocked();
  }
}

rmmjs_status CsvLog::Flush() {
  WriteBuffered();
  const int error = error_.exchange(0);
  if (error == 0) return RMMJS_OK;
  return Fail(RMMJS_ERR_LOGIC, "Failed writing to file " + path_ + ": " + std::strerror(error));
}

void CsvLog::WriteBuffered() {
  std::lock_guard<std::mutex> lock(file_mutex_);
  bool write_in_place = false;
  {
    std::lock_guard<SpinLock> append(append_lock_);
    if (current_.used > 0) {
      Chunk next = NewChunkLocked();
      if (next.data) {
        full_.push_back(std::move(current_));
        current_ = std::move(next);
      } else {
        write_in_place = true;
      }
    }
  }
  DrainLocked();
  if (write_in_place) {  // out of host memory: write the current chunk in place, appends wait
    std::lock_guard<SpinLock> append(append_lock_);
    if (full_.empty()) {  // else a chunk filled meanwhile: these rows stay buffered behind it
      WriteAll(current_.data.get(), current_.used);
      current_.used = 0;
    }
  }
}

void CsvLog::DrainLocked() {
  for (;;) {
    Chunk chunk;
    {
      std::lock_guard<SpinLock> lock(append_lock_);
      if (full_.empty()) return;
      chunk = std::move(full_.front());
      full_.pop_front();
    }
    WriteAll(chunk.data.get(), chunk.used);
    chunk.used = 0;
    std::lock_guard<SpinLock> lock(append_lock_);
    spare_.push_back(std::move(chunk));
  }
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
