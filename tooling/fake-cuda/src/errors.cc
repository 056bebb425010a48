// cuGetErrorName / cuGetErrorString, with the real driver's names and descriptions.
#include <climits>

#include "state.h"

namespace fake {
namespace {

struct ErrorInfo {
  int code;
  const char* name;
  const char* description;
};

constexpr ErrorInfo kErrors[] = {
    {0, "CUDA_SUCCESS", "no error"},
    {1, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {3, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {4, "CUDA_ERROR_DEINITIALIZED", "driver shutting down"},
    {34, "CUDA_ERROR_STUB_LIBRARY", "CUDA driver is a stub library"},
    {46, "CUDA_ERROR_DEVICE_UNAVAILABLE", "CUDA-capable device(s) is/are busy or unavailable"},
    {100, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {101, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {200, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {201, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {205, "CUDA_ERROR_MAP_FAILED", "mapping of buffer object failed"},
    {208, "CUDA_ERROR_ALREADY_MAPPED", "resource already mapped"},
    {400, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {500, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {600, "CUDA_ERROR_NOT_READY", "device not ready"},
    {700, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"},
    {712, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED", "part or all of the requested memory range is already mapped"},
    {713, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED", "pointer does not correspond to a registered memory region"},
    {719, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {800, "CUDA_ERROR_NOT_PERMITTED", "operation not permitted"},
    {801, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
    {802, "CUDA_ERROR_SYSTEM_NOT_READY", "system not yet initialized"},
    {803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", "system has unsupported display driver / cuda driver combination"},
    {999, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

const ErrorInfo* Find(int code) {
  for (const ErrorInfo& error : kErrors) {
    if (error.code == code) return &error;
  }
  return nullptr;
}

}  // namespace

const char* ErrorName(int code) {
  const ErrorInfo* error = Find(code);
  return error ? error->name : nullptr;
}

const char* ErrorDescription(int code) {
  const ErrorInfo* error = Find(code);
  return error ? error->description : nullptr;
}

bool ParseErrorCode(const std::string& text, int* code) {
  long long number = 0;
  if (ParseInteger(text, INT_MIN, INT_MAX, &number)) {
    *code = int(number);
  } else {
    const ErrorInfo* named = nullptr;
    for (const ErrorInfo& error : kErrors) {
      if (text == error.name) named = &error;
    }
    if (named == nullptr) return false;
    *code = named->code;
  }
  return *code != kSuccess;  // injecting "success" would be a no-op fault
}

}  // namespace fake

using namespace fake;

extern "C" rmmjs_CUresult cuGetErrorName(rmmjs_CUresult error, const char** name) {
  Entry call(Symbol::cuGetErrorName, Needs::kNothing);
  if (call.status() != kSuccess) return call.status();
  if (name == nullptr) return kInvalidValue;
  *name = ErrorName(error);
  return *name != nullptr ? kSuccess : kInvalidValue;
}

extern "C" rmmjs_CUresult cuGetErrorString(rmmjs_CUresult error, const char** description) {
  Entry call(Symbol::cuGetErrorString, Needs::kNothing);
  if (call.status() != kSuccess) return call.status();
  if (description == nullptr) return kInvalidValue;
  *description = ErrorDescription(error);
  return *description != nullptr ? kSuccess : kInvalidValue;
}
