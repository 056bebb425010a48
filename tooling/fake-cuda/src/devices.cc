// cuInit, devices and primary contexts. The current context is per thread, as in the driver.
#include <cstdio>
#include <cstring>

#include "state.h"

using namespace fake;

namespace {

bool IsPrimaryContext(const State& state, const CUctx_st* context) {
  for (const Device& device : state.devices) {
    if (device.primary_context.get() == context) return true;
  }
  return false;
}

}  // namespace

extern "C" rmmjs_CUresult cuInit(unsigned int flags) {
  Entry call(Symbol::cuInit, Needs::kNothing);
  if (call.status() != kSuccess) return call.status();
  if (flags != 0) return kInvalidValue;
  State& state = call.state();
  if (state.devices.empty()) return kNoDevice;
  state.initialized = true;
  return kSuccess;
}

extern "C" rmmjs_CUresult cuDriverGetVersion(int* version) {
  Entry call(Symbol::cuDriverGetVersion, Needs::kNothing);
  if (call.status() != kSuccess) return call.status();
  if (version == nullptr) return kInvalidValue;
  *version = call.state().driver_version;
  return kSuccess;
}

extern "C" rmmjs_CUresult cuDeviceGetCount(int* count) {
  Entry call(Symbol::cuDeviceGetCount);
  if (call.status() != kSuccess) return call.status();
  if (count == nullptr) return kInvalidValue;
  *count = int(call.state().devices.size());
  return kSuccess;
}

extern "C" rmmjs_CUresult cuDeviceGet(rmmjs_CUdevice* device, int ordinal) {
  Entry call(Symbol::cuDeviceGet);
  if (call.status() != kSuccess) return call.status();
  if (device == nullptr) return kInvalidValue;
  if (!call.state().ValidDevice(ordinal)) return kInvalidDevice;
  *device = ordinal;
  return kSuccess;
}

extern "C" rmmjs_CUresult cuDeviceGetAttribute(int* value, int attribute, rmmjs_CUdevice device) {
  Entry call(Symbol::cuDeviceGetAttribute);
  if (call.status() != kSuccess) return call.status();
  if (value == nullptr) return kInvalidValue;
  if (!call.state().ValidDevice(device)) return kInvalidDevice;
  *value = call.state().Attribute(device, attribute);
  return kSuccess;
}

extern "C" rmmjs_CUresult cuDeviceGetName(char* name, int length, rmmjs_CUdevice device) {
  Entry call(Symbol::cuDeviceGetName);
  if (call.status() != kSuccess) return call.status();
  if (name == nullptr || length <= 0) return kInvalidValue;
  if (!call.state().ValidDevice(device)) return kInvalidDevice;
  std::snprintf(name, size_t(length), "rmmjs fake CUDA device %d", device);
  return kSuccess;
}

extern "C" rmmjs_CUresult cuDevicePrimaryCtxRetain(rmmjs_CUcontext* context, rmmjs_CUdevice device) {
  Entry call(Symbol::cuDevicePrimaryCtxRetain);
  if (call.status() != kSuccess) return call.status();
  if (context == nullptr) return kInvalidValue;
  if (!call.state().ValidDevice(device)) return kInvalidDevice;
  CUctx_st* primary = call.state().devices[device].primary_context.get();
  ++primary->retain_count;
  *context = primary;
  return kSuccess;
}

extern "C" rmmjs_CUresult cuCtxGetCurrent(rmmjs_CUcontext* context) {
  Entry call(Symbol::cuCtxGetCurrent);
  if (call.status() != kSuccess) return call.status();
  if (context == nullptr) return kInvalidValue;
  *context = CurrentContext();
  return kSuccess;
}

extern "C" rmmjs_CUresult cuCtxSetCurrent(rmmjs_CUcontext context) {
  Entry call(Symbol::cuCtxSetCurrent);
  if (call.status() != kSuccess) return call.status();
  if (context != nullptr && !IsPrimaryContext(call.state(), context)) return kInvalidContext;
  CurrentContext() = context;
  return kSuccess;
}

extern "C" rmmjs_CUresult cuCtxGetDevice(rmmjs_CUdevice* device) {
  Entry call(Symbol::cuCtxGetDevice);
  if (call.status() != kSuccess) return call.status();
  if (device == nullptr) return kInvalidValue;
  if (CurrentContext() == nullptr) return kInvalidContext;
  *device = CurrentDevice();
  return kSuccess;
}

extern "C" rmmjs_CUresult cuCtxGetStreamPriorityRange(int* least, int* greatest) {
  Entry call(Symbol::cuCtxGetStreamPriorityRange);
  if (call.status() != kSuccess) return call.status();
  // Either pointer may be NULL, as in the driver.
  if (least != nullptr) *least = kStreamPriorityLeast;
  if (greatest != nullptr) *greatest = kStreamPriorityGreatest;
  return kSuccess;
}

// "fakecuda" and seven zero bytes, then the ordinal: the same device has the same UUID in every
// process, as a GPU does, while ordinals may differ between processes.
extern "C" rmmjs_CUresult cuDeviceGetUuid(rmmjs_CUuuid* uuid, rmmjs_CUdevice device) {
  Entry call(Symbol::cuDeviceGetUuid);
  if (call.status() != kSuccess) return call.status();
  if (uuid == nullptr) return kInvalidValue;
  if (!call.state().ValidDevice(device)) return kInvalidDevice;
  std::memset(uuid->bytes, 0, sizeof(uuid->bytes));
  std::memcpy(uuid->bytes, "fakecuda", 8);
  uuid->bytes[15] = static_cast<char>(device);
  return kSuccess;
}
