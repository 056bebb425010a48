// The benchmarks' native loops: the driver's own allocate/free pair, and the same work through
// the C ABI, timed in C++ so that JavaScript's overhead can be measured against them.
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

using Clock = std::chrono::steady_clock;

double NsPer(Clock::time_point start, size_t count) {
  return std::chrono::duration<double, std::nano>(Clock::now() - start).count() / static_cast<double>(count);
}

const rmmjs_driver_api& Driver(Napi::Env env) {
  const rmmjs_driver_api* driver = CoreApi()->driver();
  if (driver == nullptr) throw Napi::Error::New(env, "no CUDA driver (host mode)");
  return *driver;
}

void CheckDriver(Napi::Env env, int result, const char* call) {
  if (result != RMMJS_CUDA_SUCCESS) js::ThrowStatus(env, FailCuda(result, call));
}

// Device 0's context, current for the whole loop.
class Device0 {
 public:
  explicit Device0(Napi::Env env) : context_(0) { js::Check(env, context_.status()); }

 private:
  DeviceContext context_;
};

}  // namespace

// driverPairNs(nbytes, iterations): cuMemAlloc + cuMemFree.
Napi::Value DriverPairNs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const rmmjs_driver_api& cu = Driver(env);
  size_t bytes = js::SizeArg(info[0]);
  size_t iterations = js::SizeArg(info[1]);
  Device0 device(env);
  auto start = Clock::now();
  for (size_t i = 0; i < iterations; i++) {
    rmmjs_CUdeviceptr ptr = 0;
    CheckDriver(env, cu.cuMemAlloc(&ptr, bytes), "cuMemAlloc_v2");
    CheckDriver(env, cu.cuMemFree(ptr), "cuMemFree_v2");
  }
  return Napi::Number::New(env, NsPer(start, iterations));
}

// driverPoolPairNs(poolHandle, nbytes, iterations): cuMemAllocFromPoolAsync + cuMemFreeAsync on stream 0.
Napi::Value DriverPoolPairNs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const rmmjs_driver_api& cu = Driver(env);
  bool lossless = false;
  auto pool = reinterpret_cast<rmmjs_CUmemoryPool>(info[0].As<Napi::BigInt>().Uint64Value(&lossless));
  size_t bytes = js::SizeArg(info[1]);
  size_t iterations = js::SizeArg(info[2]);
  Device0 device(env);
  auto start = Clock::now();
  for (size_t i = 0; i < iterations; i++) {
    rmmjs_CUdeviceptr ptr = 0;
    CheckDriver(env, cu.cuMemAllocFromPoolAsync(&ptr, bytes, pool, nullptr), "cuMemAllocFromPoolAsync");
    CheckDriver(env, cu.cuMemFreeAsync(ptr, nullptr), "cuMemFreeAsync");
  }
  double ns = NsPer(start, iterations);
  CheckDriver(env, cu.cuStreamSynchronize(nullptr), "cuStreamSynchronize");
  return Napi::Number::New(env, ns);
}

// abiPairNs(mr, nbytes, iterations): allocate + deallocate through the C ABI.
Napi::Value AbiPairNs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  rmmjs_resource* mr = js::ResourceArg(env, info[0], "mr");
  size_t bytes = js::SizeArg(info[1]);
  size_t iterations = js::SizeArg(info[2]);
  const rmmjs_core_api* api = CoreApi();
  DeviceContext context(mr->device);
  js::Check(env, context.status());
  auto start = Clock::now();
  for (size_t i = 0; i < iterations; i++) {
    void* ptr = nullptr;
    js::Check(env, api->allocate(mr, bytes, 0, &ptr));
    js::Check(env, api->deallocate(mr, ptr, bytes, 0));
  }
  return Napi::Number::New(env, NsPer(start, iterations));
}

// abiRandomNs(mr, sizes, frees): the random workload through the C ABI. sizes[i] > 0 allocates;
// otherwise frees[i] is the index (swap-remove) of the live allocation to free. Returns ns per
// operation (allocations + frees, the final frees included).
Napi::Value AbiRandomNs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  rmmjs_resource* mr = js::ResourceArg(env, info[0], "mr");
  Napi::Float64Array sizes = info[1].As<Napi::Float64Array>();
  Napi::Float64Array frees = info[2].As<Napi::Float64Array>();
  const rmmjs_core_api* api = CoreApi();
  struct Live {
    void* ptr;
    size_t bytes;
  };
  std::vector<Live> live;
  live.reserve(1 << 16);
  size_t operations = 0;
  rmmjs_status status = RMMJS_OK;
  auto start = Clock::now();
  for (size_t i = 0; i < sizes.ElementLength() && status == RMMJS_OK; i++, operations++) {
    if (sizes[i] > 0) {
      void* ptr = nullptr;
      status = api->allocate(mr, static_cast<size_t>(sizes[i]), 0, &ptr);
      if (status == RMMJS_OK) live.push_back({ptr, static_cast<size_t>(sizes[i])});
    } else {
      size_t at = static_cast<size_t>(frees[i]);
      status = api->deallocate(mr, live[at].ptr, live[at].bytes, 0);
      live[at] = live.back();
      live.pop_back();
    }
  }
  for (const Live& allocation : live) {  // also after a failure: nothing stays allocated
    rmmjs_status freed = api->deallocate(mr, allocation.ptr, allocation.bytes, 0);
    if (status == RMMJS_OK) status = freed;
    operations++;
  }
  double ns = NsPer(start, operations);
  js::Check(env, status);
  return Napi::Number::New(env, ns);
}

// abiThreadsOpsPerSecond(mr, threads, nbytes, seconds): native threads (no JavaScript) doing
// allocate + deallocate pairs of nbytes on the default stream through the C ABI on one resource
// at once, for `seconds`. Returns operations per second (a pair counts as two): each thread's
// rate over the time it measured, added up.
Napi::Value AbiThreadsOpsPerSecond(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  rmmjs_resource* mr = js::ResourceArg(env, info[0], "mr");
  const size_t count = js::SizeArg(info[1]);
  const size_t bytes = js::SizeArg(info[2]);
  const double seconds = info[3].As<Napi::Number>().DoubleValue();
  if (count == 0 || count > 1024) throw Napi::RangeError::New(env, "threads must be 1 to 1024");
  const rmmjs_core_api* api = CoreApi();
  // One per thread, each on its own cache line (a shared one would slow the threads measured).
  struct alignas(64) Result {
    double ops_per_second = 0;
    std::string error;
  };
  std::vector<Result> results(count);
  std::atomic<size_t> ready{0};
  std::atomic<bool> go{false};
  auto pairs = [&](size_t n, Result& result) {
    for (size_t i = 0; i < n; i++) {
      void* ptr = nullptr;
      rmmjs_status status = api->allocate(mr, bytes, 0, &ptr);
      if (status == RMMJS_OK) status = api->deallocate(mr, ptr, bytes, 0);
      if (status != RMMJS_OK) {
        result.error = api->error_message();
        return false;
      }
    }
    return true;
  };
  api->retain(mr);  // a thread may still run should this throw
  std::vector<std::thread> threads;
  threads.reserve(count);
  for (size_t t = 0; t < count; t++) {
    threads.emplace_back([&, t] {
      Result& result = results[t];
      const bool warm = pairs(1000, result);
      ready.fetch_add(1);
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      if (!warm) return;
      const auto start = Clock::now();
      const auto end = start + std::chrono::duration<double>(seconds);
      size_t operations = 0;
      auto now = start;
      while (now < end && pairs(256, result)) {
        operations += 512;
        now = Clock::now();
      }
      result.ops_per_second = static_cast<double>(operations) / std::chrono::duration<double>(now - start).count();
    });
  }
  while (ready.load() < count) std::this_thread::yield();
  go.store(true, std::memory_order_release);
  for (std::thread& thread : threads) thread.join();
  api->release(mr);
  double total = 0;
  for (const Result& result : results) {
    if (!result.error.empty()) throw Napi::Error::New(env, "a benchmark thread failed: " + result.error);
    total += result.ops_per_second;
  }
  return Napi::Number::New(env, total);
}

}  // namespace rmmjs::test_addon
