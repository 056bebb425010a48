// Status and error helpers for resources written in C++ against the C ABI (rmmjs/abi.h):
// errors cross the ABI as a status plus core's thread-local message, never as exceptions.
#ifndef RMMJS_STATUS_HPP
#define RMMJS_STATUS_HPP

#include <new>
#include <string>

#include "rmmjs/abi.h"
#include "rmmjs/cuda_driver.h"
#include "rmmjs/resource.hpp"

// Returns the status of expr from the enclosing function when it is not RMMJS_OK.
#define RMMJS_TRY(expr)                                          \
  do {                                                           \
    rmmjs_status rmmjs_try_status_ = (expr);                     \
    if (rmmjs_try_status_ != RMMJS_OK) return rmmjs_try_status_; \
  } while (0)

namespace rmmjs {

// Sets core's thread-local error (status, message) and returns status.
inline rmmjs_status Fail(rmmjs_status status, const std::string& message) {
  return CoreApi()->set_error(status, 0, message.c_str());
}

// RMMJS_ERR_OUT_OF_MEMORY "<who>: out of host memory" (a std::bad_alloc caught at the ABI boundary).
inline rmmjs_status FailOutOfHostMemory(const char* who) {
  return Fail(RMMJS_ERR_OUT_OF_MEMORY, std::string(who) + ": out of host memory");
}

// The driver's name of a CUDA error code ("CUDA_ERROR_OUT_OF_MEMORY"), or CUDA_ERROR_UNKNOWN(<code>).
inline std::string CudaErrorName(int result) {
  const char* name = nullptr;
  if (const rmmjs_driver_api* driver = CoreApi()->driver()) driver->cuGetErrorName(result, &name);
  return name != nullptr ? name : "CUDA_ERROR_UNKNOWN(" + std::to_string(result) + ")";
}

// "<name> <description>" of a CUDA error code, as core's messages show it.
inline std::string DescribeCudaError(int result) {
  const char* description = nullptr;
  if (const rmmjs_driver_api* driver = CoreApi()->driver()) driver->cuGetErrorString(result, &description);
  return CudaErrorName(result) + " " + (description != nullptr ? description : "unknown error");
}

// RMMJS_ERR_CUDA for a driver call that returned result: "CUDA error at <call>: <name> <description>".
inline rmmjs_status FailCuda(int result, const char* call) {
  std::string message = std::string("CUDA error at ") + call + ": " + DescribeCudaError(result);
  return CoreApi()->set_error(RMMJS_ERR_CUDA, result, message.c_str());
}

// For an allocating driver call that returned result: RMMJS_ERR_OUT_OF_MEMORY for
// CUDA_ERROR_OUT_OF_MEMORY (RMM's out_of_memory), RMMJS_ERR_CUDA otherwise, with the CUDA code and
// "CUDA error (failed to allocate <bytes> bytes) at <call>: <name> <description>".
inline rmmjs_status FailCudaAllocation(int result, const char* call, size_t bytes) {
  std::string message = "CUDA error (failed to allocate " + std::to_string(bytes) + " bytes) at " + call + ": " +
                        DescribeCudaError(result);
  rmmjs_status status = result == RMMJS_CUDA_ERROR_OUT_OF_MEMORY ? RMMJS_ERR_OUT_OF_MEMORY : RMMJS_ERR_CUDA;
  return CoreApi()->set_error(status, result, message.c_str());
}

// The message of the last error set on this thread ("" when none).
inline std::string LastErrorMessage() {
  const char* message = CoreApi()->error_message();
  return message != nullptr ? message : "";
}

// Writes message to core's debug logger when level is enabled (RMM_DEBUG_LOG_FILE or stderr).
inline void LogAt(rmmjs_log_level level, const std::string& message) {
  const rmmjs_core_api* api = CoreApi();
  if (api->should_log(level)) api->log(level, message.c_str());
}

// Runs body (a callable returning rmmjs_status) and turns a std::bad_alloc it throws into
// FailOutOfHostMemory(who). Resources built with resource.hpp need it only for a step after which
// something must be undone (an upstream allocation given back): their operations as a whole are
// guarded already (detail::Guarded).
template <class Body>
rmmjs_status GuardHostMemory(const char* who, Body&& body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return FailOutOfHostMemory(who);
  }
}

}  // namespace rmmjs

#endif  // RMMJS_STATUS_HPP
