#include "runtime/logger.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "rmmjs/log_file.hpp"
#include "rmmjs/log_format.hpp"

namespace rmmjs {
namespace {

// spdlog's level names (rapids-logger prints them): "warning", not "warn".
const char* const kLevelNames[] = {"trace", "debug", "info", "warning", "error", "critical", "off"};

struct Logger {
  std::atomic<int> level{RMMJS_LOG_INFO};
  std::atomic<int> flush_level{RMMJS_LOG_INFO};
  std::mutex mutex;
  FILE* out = stderr;

  // RMM's default_sink(): $RMM_DEBUG_LOG_FILE, truncated when the logger starts, else stderr. The
  // logger starts at its first use, on whichever thread: a file that could block it is refused.
  Logger() {
    const char* path = std::getenv("RMM_DEBUG_LOG_FILE");
    if (path == nullptr || path[0] == '\0') return;
    std::string why;
    int fd = OpenLogFile(path, &why);
    FILE* file = fd >= 0 ? fdopen(fd, "w") : nullptr;
    if (file != nullptr) {
      out = file;
      return;
    }
    if (fd >= 0) {
      why = std::strerror(errno);
      close(fd);
    }
    std::fprintf(stderr, "rmmjs: cannot open RMM_DEBUG_LOG_FILE %s (%s): the debug log goes to stderr\n", path,
                 why.c_str());
  }
};

Logger& TheLogger() {
  static Logger* logger = new Logger();  // never destroyed: messages may come during exit
  return *logger;
}

}  // namespace

void SetLogLevel(rmmjs_log_level level) { TheLogger().level = level; }
rmmjs_log_level GetLogLevel() { return static_cast<rmmjs_log_level>(TheLogger().level.load()); }
void SetFlushLevel(rmmjs_log_level level) { TheLogger().flush_level = level; }
rmmjs_log_level GetFlushLevel() { return static_cast<rmmjs_log_level>(TheLogger().flush_level.load()); }

// spdlog's should_log: at or above the logger's level (so `off` always passes, as in RMM).
bool ShouldLog(rmmjs_log_level level) {
  return static_cast<int>(level) >= TheLogger().level.load(std::memory_order_relaxed);
}

// One line in RMM's default pattern, "[%6t][%H:%M:%S:%f][%-6l] %v".
void Log(rmmjs_log_level level, const std::string& message) {
  if (level < RMMJS_LOG_TRACE || level > RMMJS_LOG_OFF || !ShouldLog(level)) return;
  namespace fmt = log_format;
  char prefix[80];
  char* end = prefix;
  *end++ = '[';
  end = fmt::AppendPadded(end, fmt::ThreadId(), 6, ' ');
  end = fmt::AppendText(end, "][", 2);
  end = fmt::TimeOfDay::ThisThread().Append(end, fmt::Timestamp::Now(), ':');
  end = fmt::AppendText(end, "][", 2);
  const char* name = kLevelNames[level];
  size_t length = std::strlen(name);
  end = fmt::AppendText(end, name, length);
  for (; length < 6; length++) *end++ = ' ';
  end = fmt::AppendText(end, "] ", 2);

  Logger& logger = TheLogger();
  std::lock_guard<std::mutex> lock(logger.mutex);
  std::fwrite(prefix, 1, end - prefix, logger.out);
  std::fwrite(message.data(), 1, message.size(), logger.out);
  std::fputc('\n', logger.out);
  // spdlog's should_flush_: at or above the flush level, never for `off`.
  if (static_cast<int>(level) >= logger.flush_level.load() && level != RMMJS_LOG_OFF) std::fflush(logger.out);
}

void FlushLog() {
  Logger& logger = TheLogger();
  std::lock_guard<std::mutex> lock(logger.mutex);
  std::fflush(logger.out);
}

}  // namespace rmmjs
