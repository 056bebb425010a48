#include "runtime/errors.h"

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

}  // namespace

rmmjs_status SetError(rmmjs_status status, int cuda_code, std::string message) {
  ThreadError& error = Current();
  error.cuda_code = cuda_code;
  error.message = std::move(message);
  return status;
}

const char* ErrorMessage() { return Current().message.c_str(); }
int ErrorCudaCode() { return Current().cuda_code; }

rmmjs_status CudaFailure(int result, const char* call) { return FailCuda(result, call); }

rmmjs_status FreeFailure(int result, const char* call, const char* resource, size_t bytes) {
  if (result != RMMJS_CUDA_ERROR_INVALID_VALUE) return CudaFailure(result, call);
  return SetError(RMMJS_ERR_LOGIC, result,
                  std::string(resource) + ": cannot deallocate " + std::to_string(bytes) +
                      " bytes at a pointer it did not allocate or already deallocated (" + call + ": " +
                      CudaErrorName(result) + ")");
}

}  // namespace rmmjs
