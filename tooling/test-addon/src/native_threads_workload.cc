// nativeThreadsWorkload(mr, threads, iterations, minBytes, maxBytes, maxLive, seed, check): native
// threads (std::thread, no JavaScript) allocating and freeing through the C ABI at once, for the
// tests (with check: every block is filled with its own pattern on allocation and compared when
// freed, so overlapping blocks are caught) and the thread-scaling benchmark (without check).
// Returns { operations, seconds, mismatches, errors }.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "methods.h"
#include "rmmjs/addon.hpp"

namespace rmmjs::test_addon {
namespace {

struct Options {
  rmmjs_resource* mr;
  size_t iterations;
  size_t min_bytes;
  size_t max_bytes;
  size_t max_live;
  uint64_t seed;
  bool check;
};

// One per thread, each on its own cache line (a shared one would slow the threads measured).
struct alignas(64) ThreadResult {
  std::chrono::steady_clock::time_point start;
  std::chrono::steady_clock::time_point end;
  size_t operations = 0;
  size_t mismatches = 0;
  std::string error;
};

uint64_t NextRandom(uint64_t& state) {  // splitmix64
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

struct Live {
  void* ptr;
  size_t bytes;
  uint8_t tag;
};

void Fill(std::vector<uint8_t>& host, size_t bytes, uint8_t tag) {
  for (size_t i = 0; i < bytes; i++) host[i] = static_cast<uint8_t>(tag + i * 7);
}

rmmjs_status CopyAndWait(void* dst, const void* src, size_t bytes) {
  const rmmjs_core_api* api = CoreApi();
  rmmjs_status status = api->memcpy_async(dst, src, bytes, 0);
  return status == RMMJS_OK ? api->stream_synchronize(0) : status;
}

void RunThread(const Options& options, uint64_t seed, const std::atomic<bool>& go, ThreadResult& result) {
  const rmmjs_core_api* api = CoreApi();
  DeviceContext context(options.mr->device);
  if (context.status() != RMMJS_OK) {
    result.error = LastErrorMessage();
    result.start = result.end = std::chrono::steady_clock::now();
    return;
  }
  uint64_t random = seed;
  std::vector<Live> live;
  live.reserve(options.max_live);
  std::vector<uint8_t> host(options.check ? options.max_bytes : 0);
  auto fail = [&](rmmjs_status) { result.error = LastErrorMessage(); };
  auto release = [&](size_t at) {
    Live block = live[at];
    live[at] = live.back();
    live.pop_back();
    if (options.check) {
      rmmjs_status status = CopyAndWait(host.data(), block.ptr, block.bytes);
      if (status != RMMJS_OK) {
        fail(status);
        return false;
      }
      for (size_t i = 0; i < block.bytes; i++) {
        if (host[i] != static_cast<uint8_t>(block.tag + i * 7)) {
          result.mismatches++;
          break;
        }
      }
    }
    rmmjs_status status = api->deallocate(options.mr, block.ptr, block.bytes, 0);
    if (status != RMMJS_OK) fail(status);
    result.operations++;
    return status == RMMJS_OK;
  };
  while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
  result.start = std::chrono::steady_clock::now();
  for (size_t i = 0; i < options.iterations && result.error.empty(); i++) {
    bool allocate = live.empty() || (live.size() < options.max_live && (NextRandom(random) & 1) != 0);
    if (!allocate) {
      if (!release(NextRandom(random) % live.size())) break;
      continue;
    }
    size_t span = options.max_bytes - options.min_bytes + 1;
    size_t bytes = options.min_bytes + (span > 1 ? NextRandom(random) % span : 0);
    void* ptr = nullptr;
    rmmjs_status status = api->allocate(options.mr, bytes, 0, &ptr);
    if (status != RMMJS_OK) {
      fail(status);
      break;
    }
    auto tag = static_cast<uint8_t>(NextRandom(random));
    live.push_back({ptr, bytes, tag});
    result.operations++;
    if (options.check) {
      Fill(host, bytes, tag);
      if ((status = CopyAndWait(ptr, host.data(), bytes)) != RMMJS_OK) fail(status);
    }
  }
  while (!live.empty() && release(live.size() - 1)) {
  }
  result.end = std::chrono::steady_clock::now();
}

}  // namespace

Napi::Value NativeThreadsWorkload(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Options options{};
  options.mr = js::ResourceArg(env, info[0], "mr");
  size_t threads = js::SizeArg(info[1]);
  options.iterations = js::SizeArg(info[2]);
  options.min_bytes = js::SizeArg(info[3]);
  options.max_bytes = js::SizeArg(info[4]);
  options.max_live = js::SizeArg(info[5]);
  options.seed = static_cast<uint64_t>(info[6].As<Napi::Number>().Int64Value());
  options.check = info[7].As<Napi::Boolean>().Value();
  if (threads == 0 || options.min_bytes == 0 || options.max_bytes < options.min_bytes || options.max_live == 0) {
    throw Napi::RangeError::New(env, "nativeThreadsWorkload: bad arguments");
  }
  ResourceRef keep = ResourceRef::Retain(options.mr);
  std::vector<ThreadResult> results(threads);
  std::vector<std::thread> workers;
  std::atomic<bool> go{false};
  for (size_t t = 0; t < threads; t++) {
    workers.emplace_back(RunThread, std::cref(options), options.seed * 1000003 + t, std::cref(go),
                         std::ref(results[t]));
  }
  go.store(true, std::memory_order_release);
  for (std::thread& worker : workers) worker.join();

  // From the first thread's start to the last one's end.
  auto first = results[0].start;
  auto last = results[0].end;
  size_t operations = 0;
  size_t mismatches = 0;
  for (const ThreadResult& result : results) {
    if (result.start < first) first = result.start;
    if (result.end > last) last = result.end;
  }
  double seconds = std::chrono::duration<double>(last - first).count();
  Napi::Array errors = Napi::Array::New(env);
  for (const ThreadResult& result : results) {
    operations += result.operations;
    mismatches += result.mismatches;
    if (!result.error.empty()) errors.Set(errors.Length(), result.error);
  }
  Napi::Object out = Napi::Object::New(env);
  out.Set("operations", static_cast<double>(operations));
  out.Set("seconds", seconds);
  out.Set("mismatches", static_cast<double>(mismatches));
  out.Set("errors", errors);
  return out;
}

}  // namespace rmmjs::test_addon
