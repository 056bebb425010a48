#include "logger.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <mutex>
#include <thread>

namespace rmmjs {
namespace {

const char* const kLevelNames[] = {"trace", "debug", "info", "warn", "error", "critical", "off"};

struct Logger {
  std::atomic<int> level{RMMJS_LOG_INFO};
  std::atomic<int> flush_level{RMMJS_LOG_INFO};
  std::mutex mutex;
  FILE* out = nullptr;

  Logger() {
    const char* path = std::getenv("RMM_DEBUG_LOG_FILE");
    if (path != nullptr && path[0] != '\0') out = std::fopen(path, "a");
    if (out == nullptr) out = stderr;
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
rmmjs_log_level GetFlushLevel() {
  return static_cast<rmmjs_log_level>(TheLogger().flush_level.load());
}

bool ShouldLog(rmmjs_log_level level) {
  return level != RMMJS_LOG_OFF && static_cast<int>(level) >= TheLogger().level.load();
}

void Log(rmmjs_log_level level, const std::string& message) {
  if (!ShouldLog(level)) return;
  Logger& logger = TheLogger();
  auto now = std::chrono::system_clock::now();
  std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  auto micros = std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() % 1000000;
  std::tm local{};
  localtime_r(&seconds, &local);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%H:%M:%S", &local);
  auto thread = std::hash<std::thread::id>{}(std::this_thread::get_id()) % 1000000;
  std::lock_guard<std::mutex> lock(logger.mutex);
  std::fprintf(logger.out, "[%6zu][%s:%06lld][%-6s] %s\n", static_cast<size_t>(thread), stamp,
               static_cast<long long>(micros), kLevelNames[level], message.c_str());
  if (static_cast<int>(level) >= logger.flush_level.load()) std::fflush(logger.out);
}

void FlushLog() {
  Logger& logger = TheLogger();
  std::lock_guard<std::mutex> lock(logger.mutex);
  std::fflush(logger.out);
}

}  // namespace rmmjs
