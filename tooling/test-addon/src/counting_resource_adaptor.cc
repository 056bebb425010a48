// The test suites' meter of what resources take from their upstream: an adaptor that forwards
// every call and counts the bytes outstanding, each allocation rounded up to 256 as RMM's
// limiting_resource_adaptor counts them, so that a suite's expected sizes need no limiting adaptor
// (a bug there would fail every suite that meters with it).
#include <atomic>
#include <cstddef>
#include <utility>

#include "methods.h"
#include "rmmjs/addon.hpp"
#include "rmmjs/format.hpp"

namespace rmmjs::test_addon {
namespace {

class CountingResourceAdaptor {
 public:
  static constexpr const char* kTypeName = "CountingResourceAdaptor";

  explicit CountingResourceAdaptor(ResourceRef upstream) : upstream_(std::move(upstream)) {}

  rmmjs_status Allocate(size_t bytes, rmmjs_stream stream, void** out) {
    rmmjs_status status = CoreApi()->allocate(upstream_.get(), bytes, stream, out);
    if (status == RMMJS_OK) counted_bytes_ += Counted(bytes);
    return status;
  }

  rmmjs_status Deallocate(void* ptr, size_t bytes, rmmjs_stream stream) {
    rmmjs_status status = CoreApi()->deallocate(upstream_.get(), ptr, bytes, stream);
    if (status == RMMJS_OK) counted_bytes_ -= Counted(bytes);
    return status;
  }

  rmmjs_resource* Upstream() const { return upstream_.get(); }
  size_t counted_bytes() const { return counted_bytes_.load(); }

 private:
  static size_t Counted(size_t bytes) { return AlignUp(bytes, RMMJS_ALLOCATION_ALIGNMENT); }

  ResourceRef upstream_;
  std::atomic<size_t> counted_bytes_{0};  // any thread may allocate and free at once
};

}  // namespace

Napi::Value CreateCountingAdaptor(const Napi::CallbackInfo& info) {
  return js::CreateAdaptor<CountingResourceAdaptor>(info, 0);
}

Napi::Value CountedBytes(const Napi::CallbackInfo& info) {
  return js::SizeValue(info.Env(), js::Self<CountingResourceAdaptor>(info).counted_bytes());
}

}  // namespace rmmjs::test_addon
