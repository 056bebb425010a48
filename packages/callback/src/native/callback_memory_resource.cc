#include "callback_memory_resource.h"

#include <cstdint>
#include <string>

#include "rmmjs/format.hpp"
#include "rmmjs/resource.hpp"
#include "rmmjs/status.hpp"

namespace rmmjs {

namespace {
constexpr const char* kAllocateContext = "CallbackMemoryResource: the allocate callback";
constexpr const char* kDeallocateContext = "CallbackMemoryResource: the deallocate callback";
}  // namespace

rmmjs_status CallbackMemoryResource::Allocate(size_t bytes, rmmjs_stream stream, void** out) {
  JsReach reach = functions_.Reach();
  if (reach != JsReach::kHere) return JsFunctions::Unreachable(reach, kAllocateContext);
  ResourceRef keep_alive = ResourceRef::Retain(self_);
  napi_env env = functions_.env();
  JsHandleScope scope(env);
  napi_value args[2];
  napi_create_double(env, static_cast<double>(bytes), &args[0]);
  napi_create_bigint_uint64(env, static_cast<uint64_t>(stream), &args[1]);
  napi_value result = nullptr;
  rmmjs_status status = functions_.Call(kAllocate, 2, args, &result, kAllocateContext);
  if (status != RMMJS_OK) return status;
  // The JavaScript wrapper has turned the user's bigint or number into a bigint in range.
  uint64_t pointer = 0;
  bool lossless = false;
  if (napi_get_value_bigint_uint64(env, result, &pointer, &lossless) != napi_ok || !lossless) {
    return Fail(RMMJS_ERR_LOGIC, "CallbackMemoryResource: allocate did not return a pointer");
  }
  if (pointer == 0) {
    // RMM would pass the null pointer on; here nothing above a resource expects one for bytes > 0.
    return Fail(RMMJS_ERR_OUT_OF_MEMORY,
                "CallbackMemoryResource: allocate returned 0n (failed to allocate " + FormatBytes(bytes) + ")");
  }
  *out = reinterpret_cast<void*>(static_cast<uintptr_t>(pointer));
  return RMMJS_OK;
}

rmmjs_status CallbackMemoryResource::Deallocate(void* ptr, size_t bytes, rmmjs_stream stream) {
  JsReach reach = functions_.Reach();
  if (reach != JsReach::kHere) return JsFunctions::Unreachable(reach, kDeallocateContext);
  ResourceRef keep_alive = ResourceRef::Retain(self_);
  napi_env env = functions_.env();
  JsHandleScope scope(env);
  napi_value args[3];
  napi_create_bigint_uint64(env, static_cast<uint64_t>(reinterpret_cast<uintptr_t>(ptr)), &args[0]);
  napi_create_double(env, static_cast<double>(bytes), &args[1]);
  napi_create_bigint_uint64(env, static_cast<uint64_t>(stream), &args[2]);
  napi_value ignored = nullptr;
  return functions_.Call(kDeallocate, 3, args, &ignored, kDeallocateContext);
}

}  // namespace rmmjs
