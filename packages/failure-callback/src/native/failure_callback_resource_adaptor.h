// RMM's failure_callback_resource_adaptor (catching out_of_memory): when the upstream runs out
// of memory, a JavaScript callback decides whether to try again (true) or to let the failure
// stand (false).
//
// Out of memory is the status RMMJS_ERR_OUT_OF_MEMORY, or an OutOfMemoryError thrown by
// JavaScript below (a CallbackMemoryResource's function), which arrives as
// RMMJS_ERR_JS_EXCEPTION with the error held by the exception bridge: the package's JavaScript
// wrapper of the callback looks at it. Every other failure passes through untouched.
//
// The callback runs only on the JavaScript thread that created the adaptor (rmmjs/js_environment.hpp).
// Elsewhere an out-of-memory failure stays what it is (OutOfMemoryError, its message extended by
// why the callback was not asked): allocations through the adaptor keep working from every
// thread, and a caller that handles OutOfMemoryError still gets one.
#pragma once

#include <memory>

#include "rmmjs/abi.h"
#include "rmmjs/js_environment.hpp"
#include "rmmjs/resource.hpp"

namespace rmmjs {

class FailureCallbackResourceAdaptor {
 public:
  static constexpr const char* kTypeName = "FailureCallbackResourceAdaptor";

  // on_failure(nbytes, upstreamThrew) -> retry: the package's wrapper of the user's callback.
  FailureCallbackResourceAdaptor(ResourceRef upstream, std::shared_ptr<JsEnvironment> environment,
                                 napi_value on_failure)
      : upstream_(std::move(upstream)), callback_(std::move(environment), {on_failure}) {}

  rmmjs_status Init(rmmjs_resource* self) {
    self_ = self;
    return RMMJS_OK;
  }
  rmmjs_status Allocate(size_t bytes, rmmjs_stream stream, void** out);
  rmmjs_status Deallocate(void* ptr, size_t bytes, rmmjs_stream stream) {
    return CoreApi()->deallocate(upstream_.get(), ptr, bytes, stream);
  }
  rmmjs_resource* Upstream() const { return upstream_.get(); }

 private:
  rmmjs_status AskCallback(size_t bytes, bool upstream_threw, bool* retry);

  rmmjs_resource* self_ = nullptr;
  ResourceRef upstream_;
  JsFunctions callback_;
};

}  // namespace rmmjs
