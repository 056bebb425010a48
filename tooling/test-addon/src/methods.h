// The functions of the test-only addon (addon.cc exports them), one group per file. Each takes
// resources as handles (index.js passes them) and works through the C ABI only, so it runs over
// any resource: rmmjs's own, a third party's, one that calls JavaScript.
#pragma once

#include <napi.h>

namespace rmmjs::test_addon {

// bench_loops.cc: the benchmarks' native loops, timed in C++ to compare with JavaScript.
Napi::Value DriverPairNs(const Napi::CallbackInfo& info);
Napi::Value DriverPoolPairNs(const Napi::CallbackInfo& info);
Napi::Value AbiPairNs(const Napi::CallbackInfo& info);
Napi::Value AbiRandomNs(const Napi::CallbackInfo& info);
Napi::Value AbiThreadsOpsPerSecond(const Napi::CallbackInfo& info);

// native_threads_workload.cc: std::threads allocating and freeing through one resource at once.
Napi::Value NativeThreadsWorkload(const Napi::CallbackInfo& info);

// thread_probe.cc: one allocation from a thread that runs no JavaScript (and that thread's exit).
Napi::Value AllocateOnNativeThread(const Napi::CallbackInfo& info);
Napi::Value AllocateOnThreadPool(const Napi::CallbackInfo& info);
Napi::Value ExitHeld(const Napi::CallbackInfo& info);

// pointer_table_probe.cc: how far lookups probe in core's ShardedPointerTable.
Napi::Value PointerTableProbes(const Napi::CallbackInfo& info);

// best_fit_index_check.cc: core's BestFitIndex against a std::set under random operations.
Napi::Value BestFitIndexCheck(const Napi::CallbackInfo& info);

// spare_list_check.cc: core's SpareList through a fixed sequence of takes and recycles.
Napi::Value SpareListCheck(const Napi::CallbackInfo& info);

// biased_lock_probe.cc: core's BiasedLock under one thread, then under several.
Napi::Value BiasedLockRun(const Napi::CallbackInfo& info);

// napi_floor.cc: allocate/deallocate look-alikes that do nothing, for Node-API's own cost.
Napi::Value NapiFloor(const Napi::CallbackInfo& info);

// host_oom_step.cc: one sequence of calls while one operator new fails (librmmjs_fail_new.so).
Napi::Value HostOomStep(const Napi::CallbackInfo& info);

// pool_thread_caches.cc: the per-thread caches of an @rmmjs/pool PoolMemoryResource.
Napi::Value PoolThreadCaches(const Napi::CallbackInfo& info);

// stream_query.cc: cuStreamQuery of a stream on this thread (streamQuery(handle)).
Napi::Value StreamQuery(const Napi::CallbackInfo& info);

// pc_sampler.cc: a sampling profiler of the calling thread (pcSamplerStart(us), pcSamplerStop(path)).
Napi::Value PcSamplerStart(const Napi::CallbackInfo& info);
Napi::Value PcSamplerStop(const Napi::CallbackInfo& info);

// counting_resource_adaptor.cc: the suites' meter, an adaptor that counts the bytes outstanding.
Napi::Value CreateCountingAdaptor(const Napi::CallbackInfo& info);
Napi::Value CountedBytes(const Napi::CallbackInfo& info);

// forged_core_api.cc: copies of core's API table with another version, for the ABI checks.
Napi::Value ForgeCoreApi(const Napi::CallbackInfo& info);

}  // namespace rmmjs::test_addon
