// Loads the CUDA driver on first need and manages each device's primary context.
#pragma once

#include <string>

#include "rmmjs/abi.h"
#include "rmmjs/cuda_driver.h"

namespace rmmjs {

enum class DriverMode {
  kHost,    // no driver or no device (or RMMJS_DISABLE_CUDA): host memory stands in
  kCuda,    // a driver with at least one device
  kBroken,  // RMMJS_CUDA_LIBRARY names a library that cannot be used: every use is an error
};

struct DriverInfo {
  DriverMode mode;
  rmmjs_status host_status;  // RMMJS_ERR_DRIVER_NOT_FOUND or RMMJS_ERR_NO_DEVICE in host mode
  std::string reason;        // why host mode or broken, with what to do about it
  std::string library;       // the path that was loaded (or tried)
  int device_count;
  int driver_version;
};

// Loads once (thread-safe) and returns what was found.
const DriverInfo& Driver();
// The driver's function table, or nullptr in host mode.
const rmmjs_driver_api* DriverApi();
inline bool CudaAvailable() { return Driver().mode == DriverMode::kCuda; }
// OK in CUDA mode; otherwise sets the error that says why CUDA is unusable.
rmmjs_status RequireCuda();
// OK unless the driver is broken (a host-mode caller may go on).
rmmjs_status RequireUsableDriver();
// Range check for a device ordinal: [0, count) with CUDA, only 0 in host mode.
rmmjs_status ValidateDevice(int device);

rmmjs_status GetCurrentDevice(int* device);
rmmjs_status SetCurrentDevice(int device);
rmmjs_status PrimaryContext(int device, rmmjs_CUcontext* context);
// The device of any context (a primary one, or one another library made): *device; a driver call
// when it is no primary context rmmjs retained.
rmmjs_status DeviceOfContext(rmmjs_CUcontext context, int* device);

// Makes device's primary context current; *saved is what ContextRestore puts back.
rmmjs_status ContextPush(int device, void** saved);
void ContextRestore(void* saved);

// RAII form of ContextPush/ContextRestore. A scope nested in one for the same device costs
// nothing: the outer scope already checked the thread's context.
//
// kVerify asks the driver which context is current (a driver call, ~50 ns) and is for calls
// whose device follows the current context (cuMemAlloc: a wrong context would allocate on the
// wrong GPU). kTrust believes the context rmmjs last made (or saw) current on this thread, so a
// hot path that names its device anyway (a memory pool) makes no extra driver call; code that
// switches the thread's context behind rmmjs's back (another library's cudaSetDevice) should
// call cuda.setDevice() afterwards.
enum class ContextCheck { kVerify, kTrust };

class ContextScope {
 public:
  explicit ContextScope(int device, ContextCheck check = ContextCheck::kVerify);
  ~ContextScope();
  ContextScope(const ContextScope&) = delete;
  ContextScope& operator=(const ContextScope&) = delete;
  rmmjs_status status() const { return status_; }

 private:
  void* saved_ = nullptr;
  int outer_device_ = -1;
  bool nested_ = false;
  rmmjs_status status_ = RMMJS_OK;
};

}  // namespace rmmjs
