// hostOomStep(mr, k) -> what one fixed sequence of allocations and frees through the C ABI did
// while the k-th operator new of this thread failed (librmmjs_fail_new.so, which the test's child
// process preloads): a fresh resource per k reaches every allocation point of the sequence, its
// first-use growth included, once each. Every call must succeed or fail with
// RMMJS_ERR_OUT_OF_MEMORY and change nothing: a free that failed is done again (it must work), and
// the blocks live at once never overlap.
#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "methods.h"
#include "rmmjs/addon.hpp"

namespace rmmjs::test_addon {
namespace {

struct Injector {
  void (*fail_after)(long) = nullptr;
  long (*left)() = nullptr;
};

Injector FindInjector() {
  Injector injector;
  injector.fail_after = reinterpret_cast<void (*)(long)>(dlsym(RTLD_DEFAULT, "rmmjs_fail_new_after"));
  injector.left = reinterpret_cast<long (*)()>(dlsym(RTLD_DEFAULT, "rmmjs_fail_new_left"));
  return injector;
}

struct Block {
  void* ptr;
  size_t bytes;
  rmmjs_stream stream;
};

// The sizes cover the small and large paths of the sub-allocators (the arena's global arena takes
// more than 1 MiB, the binning resource's bins end at 1 MiB); every third call is on the
// per-thread default stream, whose state a resource makes on first use.
constexpr size_t kSizes[] = {256, 5000, size_t{1} << 20, (size_t{2} << 20) + 256, 64 << 10, size_t{3} << 20, 1, 300000};
constexpr rmmjs_stream kPerThreadStream = 2;

}  // namespace

Napi::Value HostOomStep(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  rmmjs_resource* mr = js::ResourceArg(env, info[0], "mr");
  long k = static_cast<long>(info[1].As<Napi::Number>().Int64Value());
  Injector injector = FindInjector();
  if (injector.fail_after == nullptr || injector.left == nullptr) {
    js::ThrowTypeError(env, "hostOomStep needs librmmjs_fail_new.so preloaded (LD_PRELOAD)");
  }
  const rmmjs_core_api* api = CoreApi();
  // This thread's own operator new counts too: everything the sequence keeps is reserved before
  // the countdown starts, so that only the resource's allocations can fail.
  constexpr size_t kMost = std::size(kSizes) + 2;
  std::vector<Block> live, kept, sorted;
  std::vector<std::pair<int, rmmjs_status>> unexpected;  // (0 allocate, 1 deallocate; status)
  live.reserve(kMost);
  kept.reserve(kMost);
  sorted.reserve(kMost);
  unexpected.reserve(4 * kMost);
  int failed_allocations = 0;
  int failed_frees = 0;
  int refrees_failed = 0;
  size_t overlaps = 0;
  auto allocate = [&](size_t bytes, rmmjs_stream stream) {
    void* ptr = nullptr;
    rmmjs_status status = api->allocate(mr, bytes, stream, &ptr);
    if (status == RMMJS_OK) {
      live.push_back({ptr, bytes, stream});
    } else if (status == RMMJS_ERR_OUT_OF_MEMORY) {
      failed_allocations++;
    } else {
      unexpected.emplace_back(0, status);
    }
  };
  auto release = [&](const Block& block) {
    rmmjs_status status = api->deallocate(mr, block.ptr, block.bytes, block.stream);
    if (status == RMMJS_OK) return;
    if (status != RMMJS_ERR_OUT_OF_MEMORY) {
      unexpected.emplace_back(1, status);
      return;
    }
    failed_frees++;
    injector.fail_after(-1);
    if (api->deallocate(mr, block.ptr, block.bytes, block.stream) != RMMJS_OK) refrees_failed++;
  };

  injector.fail_after(k);
  for (size_t i = 0; i < std::size(kSizes); i++) allocate(kSizes[i], i % 3 == 2 ? kPerThreadStream : 0);
  sorted.assign(live.begin(), live.end());
  std::sort(sorted.begin(), sorted.end(), [](const Block& a, const Block& b) { return a.ptr < b.ptr; });
  for (size_t i = 1; i < sorted.size(); i++) {
    if (static_cast<char*>(sorted[i - 1].ptr) + sorted[i - 1].bytes > sorted[i].ptr) overlaps++;
  }
  // Every other block back, two more taken (reusing what came back), then everything back.
  for (size_t i = 0; i < live.size(); i++) {
    if (i % 2 == 0) {
      release(live[i]);
    } else {
      kept.push_back(live[i]);
    }
  }
  live.assign(kept.begin(), kept.end());
  allocate(256, 0);
  allocate(size_t{2} << 20, kPerThreadStream);
  for (const Block& block : live) release(block);
  bool fired = injector.left() < 0;
  injector.fail_after(-1);

  Napi::Object result = Napi::Object::New(env);
  result.Set("fired", Napi::Boolean::New(env, fired));
  result.Set("failedAllocations", Napi::Number::New(env, failed_allocations));
  result.Set("failedFrees", Napi::Number::New(env, failed_frees));
  result.Set("refreesFailed", Napi::Number::New(env, refrees_failed));
  result.Set("overlaps", Napi::Number::New(env, static_cast<double>(overlaps)));
  Napi::Array statuses = Napi::Array::New(env, unexpected.size());
  for (size_t i = 0; i < unexpected.size(); i++) {
    const char* call = unexpected[i].first == 0 ? "allocate " : "deallocate ";
    statuses.Set(static_cast<uint32_t>(i), std::string(call) + std::to_string(unexpected[i].second));
  }
  result.Set("unexpected", statuses);
  return result;
}

}  // namespace rmmjs::test_addon
