// RMM's callback_memory_resource: allocate and deallocate are JavaScript functions.
//
// The functions run only on the JavaScript thread that created the resource (see
// rmmjs/js_environment.hpp); anywhere else the operations fail with RMMJS_ERR_WRONG_THREAD. The package's
// JavaScript wraps the user's functions: the native side calls allocate(nbytes, streamHandle)
// -> bigint pointer and deallocate(ptr, nbytes, streamHandle), the wrappers turn the handle into
// a Stream and check what the user's function returned.
#pragma once

#include <memory>

#include "rmmjs/abi.h"
#include "rmmjs/js_environment.hpp"

namespace rmmjs {

class CallbackMemoryResource {
 public:
  static constexpr const char* kTypeName = "CallbackMemoryResource";

  CallbackMemoryResource(std::shared_ptr<JsEnvironment> environment, napi_value allocate, napi_value deallocate)
      : functions_(std::move(environment), {allocate, deallocate}) {}

  rmmjs_status Init(rmmjs_resource* self) {
    self_ = self;
    return RMMJS_OK;
  }
  rmmjs_status Allocate(size_t bytes, rmmjs_stream stream, void** out);
  rmmjs_status Deallocate(void* ptr, size_t bytes, rmmjs_stream stream);

 private:
  static constexpr size_t kAllocate = 0;
  static constexpr size_t kDeallocate = 1;

  rmmjs_resource* self_ = nullptr;  // retained during each call: the callbacks may drop the last reference
  JsFunctions functions_;
};

}  // namespace rmmjs
