// Native loops for the benchmarks: the driver's own allocate/free pair, and the same work
// through the C ABI, timed in C++ so JavaScript's overhead can be measured against them.
#include <chrono>
#include <cstdint>
#include <vector>

#include "rmmjs/cuda_driver.h"
#include "rmmjs/napi.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double NsPer(Clock::time_point start, size_t count) {
  return std::chrono::duration<double, std::nano>(Clock::now() - start).count() / static_cast<double>(count);
}

const rmmjs_driver_api& Driver(Napi::Env env) {
  const rmmjs_driver_api* driver = rmmjs::CoreApi()->driver();
  if (driver == nullptr) throw Napi::Error::New(env, "no CUDA driver (host mode)");
  return *driver;
}

void Check(Napi::Env env, int result, const char* what) {
  if (result != 0) throw Napi::Error::New(env, std::string(what) + " failed with CUDA error " + std::to_string(result));
}

// A context guard for device 0 for the whole loop.
struct Device0 {
  explicit Device0(Napi::Env env) { rmmjs::js::Check(env, rmmjs::CoreApi()->context_push(0, &saved)); }
  ~Device0() { rmmjs::CoreApi()->context_restore(saved); }
  void* saved = nullptr;
};

// driverPairNs(nbytes, iterations): cuMemAlloc + cuMemFree.
Napi::Value DriverPairNs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const rmmjs_driver_api& cu = Driver(env);
  size_t bytes = info[0].As<Napi::Number>().Int64Value();
  size_t iterations = info[1].As<Napi::Number>().Int64Value();
  Device0 device(env);
  auto start = Clock::now();
  for (size_t i = 0; i < iterations; i++) {
    rmmjs_CUdeviceptr ptr = 0;
    Check(env, cu.cuMemAlloc(&ptr, bytes), "cuMemAlloc");
    Check(env, cu.cuMemFree(ptr), "cuMemFree");
  }
  return Napi::Number::New(env, NsPer(start, iterations));
}

// driverPoolPairNs(poolHandle, nbytes, iterations): cuMemAllocFromPoolAsync + cuMemFreeAsync on stream 0.
Napi::Value DriverPoolPairNs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const rmmjs_driver_api& cu = Driver(env);
  bool lossless = false;
  auto pool = reinterpret_cast<rmmjs_CUmemoryPool>(info[0].As<Napi::BigInt>().Uint64Value(&lossless));
  size_t bytes = info[1].As<Napi::Number>().Int64Value();
  size_t iterations = info[2].As<Napi::Number>().Int64Value();
  Device0 device(env);
  auto start = Clock::now();
  for (size_t i = 0; i < iterations; i++) {
    rmmjs_CUdeviceptr ptr = 0;
    Check(env, cu.cuMemAllocFromPoolAsync(&ptr, bytes, pool, nullptr), "cuMemAllocFromPoolAsync");
    Check(env, cu.cuMemFreeAsync(ptr, nullptr), "cuMemFreeAsync");
  }
  double ns = NsPer(start, iterations);
  Check(env, cu.cuStreamSynchronize(nullptr), "cuStreamSynchronize");
  return Napi::Number::New(env, ns);
}

// abiPairNs(resourceHandle, nbytes, iterations): allocate + deallocate through the C ABI.
Napi::Value AbiPairNs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  rmmjs_resource* mr = rmmjs::js::ResourceArg(env, info[0], "mr");
  size_t bytes = info[1].As<Napi::Number>().Int64Value();
  size_t iterations = info[2].As<Napi::Number>().Int64Value();
  const rmmjs_core_api* api = rmmjs::CoreApi();
  void* saved = nullptr;
  rmmjs::js::Check(env, api->context_push(mr->device, &saved));
  auto start = Clock::now();
  for (size_t i = 0; i < iterations; i++) {
    void* ptr = nullptr;
    rmmjs_status status = api->allocate(mr, bytes, 0, &ptr);
    if (status == RMMJS_OK) status = api->deallocate(mr, ptr, bytes, 0);
    if (status != RMMJS_OK) {
      api->context_restore(saved);
      rmmjs::js::ThrowStatus(env, status);
    }
  }
  double ns = NsPer(start, iterations);
  api->context_restore(saved);
  return Napi::Number::New(env, ns);
}

// abiRandomNs(resourceHandle, sizes[], frees[]): the random workload through the C ABI. sizes[i]
// > 0 allocates; otherwise frees[i] is the index (swap-remove) of the live allocation to free.
// Returns ns per operation (allocations + frees, the final frees included).
Napi::Value AbiRandomNs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  rmmjs_resource* mr = rmmjs::js::ResourceArg(env, info[0], "mr");
  Napi::Float64Array sizes = info[1].As<Napi::Float64Array>();
  Napi::Float64Array frees = info[2].As<Napi::Float64Array>();
  const rmmjs_core_api* api = rmmjs::CoreApi();
  struct Live { void* ptr; size_t bytes; };
  std::vector<Live> live;
  live.reserve(1 << 16);
  size_t operations = 0;
  auto start = Clock::now();
  for (size_t i = 0; i < sizes.ElementLength(); i++) {
    if (sizes[i] > 0) {
      void* ptr = nullptr;
      rmmjs::js::Check(env, api->allocate(mr, static_cast<size_t>(sizes[i]), 0, &ptr));
      live.push_back({ptr, static_cast<size_t>(sizes[i])});
    } else {
      size_t at = static_cast<size_t>(frees[i]);
      rmmjs::js::Check(env, api->deallocate(mr, live[at].ptr, live[at].bytes, 0));
      live[at] = live.back();
      live.pop_back();
    }
    operations++;
  }
  for (const Live& allocation : live) {
    rmmjs::js::Check(env, api->deallocate(mr, allocation.ptr, allocation.bytes, 0));
    operations++;
  }
  return Napi::Number::New(env, NsPer(start, operations));
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("init", Napi::Function::New(env, [](const Napi::CallbackInfo& info) { rmmjs::js::ReceiveCoreApi(info); }));
  exports.Set("driverPairNs", Napi::Function::New(env, DriverPairNs));
  exports.Set("driverPoolPairNs", Napi::Function::New(env, DriverPoolPairNs));
  exports.Set("abiPairNs", Napi::Function::New(env, AbiPairNs));
  exports.Set("abiRandomNs", Napi::Function::New(env, AbiRandomNs));
  return exports;
}

}  // namespace

NODE_API_MODULE(rmmjs_bench_native, Init)
