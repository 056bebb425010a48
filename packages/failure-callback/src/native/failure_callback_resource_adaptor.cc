#include "failure_callback_resource_adaptor.h"

#include <string>

#include "rmmjs/status.hpp"

namespace rmmjs {

rmmjs_status FailureCallbackResourceAdaptor::Allocate(size_t bytes, rmmjs_stream stream, void** out) {
  ResourceRef keep_alive;  // taken before the callback runs: it may drop the last reference
  for (;;) {
    rmmjs_status status = CoreApi()->allocate(upstream_.get(), bytes, stream, out);
    if (status != RMMJS_ERR_OUT_OF_MEMORY && status != RMMJS_ERR_JS_EXCEPTION) return status;
    std::string message = LastErrorMessage();  // the callback may overwrite it
    JsReach reach = callback_.Reach();
    if (reach != JsReach::kHere) {
      if (status == RMMJS_ERR_JS_EXCEPTION) return status;  // the thrown error passes unchanged
      return Fail(status, message + "; the failure callback " + JsFunctions::Explain(reach));
    }
    if (!keep_alive) keep_alive = ResourceRef::Retain(self_);
    bool retry = false;
    rmmjs_status asked = AskCallback(bytes, status == RMMJS_ERR_JS_EXCEPTION, &retry);
    if (asked != RMMJS_OK) return asked;
    if (!retry) return Fail(status, message);
  }
}

rmmjs_status FailureCallbackResourceAdaptor::AskCallback(size_t bytes, bool upstream_threw, bool* retry) {
  napi_env env = callback_.env();
  JsHandleScope scope(env);
  napi_value args[2];
  napi_create_double(env, static_cast<double>(bytes), &args[0]);
  napi_get_boolean(env, upstream_threw, &args[1]);
  napi_value result = nullptr;
  rmmjs_status status = callback_.Call(0, 2, args, &result, "FailureCallbackResourceAdaptor: the failure callback");
  if (status != RMMJS_OK) return status;
  bool value = false;
  napi_get_value_bool(env, result, &value);  // the wrapper returns a boolean
  *retry = value;
  return RMMJS_OK;
}

}  // namespace rmmjs
