#include "errors.h"

#include "driver.h"

namespace rmmjs {
namespace {

struct ThreadError {
  int cuda_code = 0;
  std::string message;
};

ThreadError& Current() {
  thread_local ThreadError error;
  return error;
}

std::string Describe(int result) {
  const char* description = nullptr;
  if (const rmmjs_driver_api* api = DriverApi()) api->cuGetErrorString(result, &description);
  return CudaErrorName(result) + " " + (description ? description : "unknown error");
}

}  // namespace

rmmjs_status SetError(rmmjs_status status, int cuda_code, std::string message) {
  ThreadError& error = Current();
  error.cuda_code = cuda_code;
  error.message = std::move(message);
  return status;
}

const char* ErrorMessage() { return Current().message.c_str(); }
int ErrorCudaCode() { return Current().cuda_code; }

std::string CudaErrorName(int result) {
  const char* name = nullptr;
  if (const rmmjs_driver_api* api = DriverApi()) api->cuGetErrorName(result, &name);
  return name ? name : "CUDA_ERROR_UNKNOWN(" + std::to_string(result) + ")";
}

rmmjs_status CudaFailure(int result, const char* call) {
  return SetError(RMMJS_ERR_CUDA, result, std::string("CUDA error at ") + call + ": " + Describe(result));
}

rmmjs_status FreeFailure(int result, const char* call, const char* resource, size_t bytes) {
  if (result != RMMJS_CUDA_ERROR_INVALID_VALUE) return CudaFailure(result, call);
  return SetError(RMMJS_ERR_LOGIC, result,
                  std::string(resource) + ": cannot deallocate " + std::to_string(bytes) +
                      " bytes at a pointer it did not allocate or already deallocated (" + call +
                      ": " + CudaErrorName(result) + ")");
}

rmmjs_status AllocationFailure(int result, const char* call, size_t bytes) {
  std::string message = "CUDA error (failed to allocate " + std::to_string(bytes) + " bytes) at " +
                        call + ": " + Describe(result);
  rmmjs_status status =
      result == RMMJS_CUDA_ERROR_OUT_OF_MEMORY ? RMMJS_ERR_OUT_OF_MEMORY : RMMJS_ERR_CUDA;
  return SetError(status, result, std::move(message));
}

}  // namespace rmmjs
