// The thread-local error that crosses the C ABI with a status code.
#pragma once

#include <string>

#include "rmmjs/abi.h"
#include "rmmjs/status.hpp"  // RMMJS_TRY, FailCuda, FailCudaAllocation, CudaErrorName

namespace rmmjs {

rmmjs_status SetError(rmmjs_status status, int cuda_code, std::string message);
inline rmmjs_status SetError(rmmjs_status status, std::string message) {
  return SetError(status, 0, std::move(message));
}
const char* ErrorMessage();
int ErrorCudaCode();

// "CUDA error at <call>: CUDA_ERROR_X description" as status RMMJS_ERR_CUDA (FailCuda).
rmmjs_status CudaFailure(int result, const char* call);
// RMMJS_OK for CUDA_SUCCESS, else CudaFailure(result, call).
inline rmmjs_status CheckCuda(int result, const char* call) {
  return result == 0 ? RMMJS_OK : CudaFailure(result, call);
}
// A free that failed in the driver. CUDA_ERROR_INVALID_VALUE means the driver does not know the
// pointer (freed already, or never allocated there): a double or foreign free, RMMJS_ERR_LOGIC
// with the wording of every resource that can tell; anything else is a CUDA error.
rmmjs_status FreeFailure(int result, const char* call, const char* resource, size_t bytes);

}  // namespace rmmjs
