#include "background_writer.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <new>
#include <system_error>
#include <thread>

#include "csv_log.h"

namespace rmmjs {
namespace {

struct BackgroundWriter {
  std::mutex mutex;
  std::condition_variable wake;
  std::deque<std::shared_ptr<CsvLog>> logs;  // logs with full chunks, in the order they asked
  bool running = false;

  BackgroundWriter() {
    try {
      std::thread([this] { Run(); }).detach();
      running = true;
    } catch (const std::system_error&) {
      // no thread: allocating threads write their chunks themselves
    }
  }

  void Run() {
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
      wake.wait(lock, [this] { return !logs.empty(); });
      std::shared_ptr<CsvLog> log = std::move(logs.front());
      logs.pop_front();
      lock.unlock();
      log->WriteFullChunks();
      log.reset();  // may destroy the log (its adaptor is gone): not under the lock
      lock.lock();
    }
  }
};

BackgroundWriter& TheWriter() {
  static BackgroundWriter* writer = new BackgroundWriter();  // never destroyed: the thread uses it
  return *writer;
}

}  // namespace

bool WakeBackgroundWriter(std::shared_ptr<CsvLog> log) {
  BackgroundWriter& writer = TheWriter();
  if (!writer.running) return false;
  try {
    std::lock_guard<std::mutex> lock(writer.mutex);
    writer.logs.push_back(std::move(log));
  } catch (const std::bad_alloc&) {
    return false;
  }
  writer.wake.notify_one();
  return true;
}

}  // namespace rmmjs
