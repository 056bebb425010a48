// exportIpcHandle: what another process needs to open a buffer's memory. CUDA shares whole
// allocations, so the handle names the allocation around the buffer (found through its address
// range) and the buffer's offset in it: many buffers of a pool share one allocation. Memory from a
// CUDA memory pool is shared through the pool (which must have been created for IPC) and export
// data of the allocation; anything else through cuIpcGetMemHandle.
#include <unistd.h>

#include <cstdio>

#include "driver_support.h"
#include "interop.h"
#include "ipc_common.h"
#include "ipc_leases.h"
#include "rmmjs/resource.hpp"

namespace rmmjs::interop {

std::string PoolId(uintptr_t pool) {
  char address[24];
  snprintf(address, sizeof(address), "%zx", static_cast<size_t>(pool));
  return ProcessToken() + ":" + address;
}

namespace {

// Whether a pool was created with a POSIX file descriptor handle type (a pool cannot be asked:
// exporting it tells).
bool PoolSharesDescriptors(const rmmjs_driver_api* driver, rmmjs_CUmemoryPool pool) {
  int fd = -1;
  if (driver->cuMemPoolExportToShareableHandle(&fd, pool, RMMJS_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0) !=
      RMMJS_CUDA_SUCCESS) {
    return false;
  }
  close(fd);
  return true;
}

}  // namespace

// exportIpc(ptr, size, device) -> { kind, handle, offset, deviceUuid, pool? }
Napi::Value ExportIpc(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  rmmjs_status status = RMMJS_OK;
  const rmmjs_driver_api* driver = Driver(&status);
  js::Check(env, status);
  bool lossless = false;
  auto ptr = static_cast<rmmjs_CUdeviceptr>(info[0].As<Napi::BigInt>().Uint64Value(&lossless));
  auto size = static_cast<size_t>(info[1].As<Napi::Number>().Int64Value());
  int device = info[2].As<Napi::Number>().Int32Value();
  if (ptr == 0 || size == 0) ThrowInvalidValue(env, "The argument \"buffer\" is empty: it has no memory to share");
  DeviceContext context(device);
  js::Check(env, context.status());
  PointerInfo pointer;
  js::Check(env, QueryPointer(driver, reinterpret_cast<void*>(ptr), &pointer));
  switch (pointer.kind) {
    case PointerInfo::kManaged:
      ThrowInvalidValue(env, "The argument \"buffer\" is CUDA managed memory, which CUDA IPC cannot share");
    case PointerInfo::kHost:
      ThrowInvalidValue(env, "The argument \"buffer\" is pinned host memory, which CUDA IPC cannot share");
    case PointerInfo::kUnknown:
      ThrowInvalidValue(env, "The argument \"buffer\" is not CUDA memory (host memory), which CUDA IPC cannot share");
    case PointerInfo::kDevice:
      break;
  }
  rmmjs_CUdeviceptr base = 0;
  size_t range = 0;
  int result = driver->cuMemGetAddressRange(&base, &range, ptr);
  if (result != RMMJS_CUDA_SUCCESS) js::Check(env, FailCuda(result, "cuMemGetAddressRange_v2"));
  if (ptr - base + size > range) {
    ThrowInvalidValue(env, "The argument \"buffer\" (" + std::to_string(size) +
                               " bytes) runs past the end of its CUDA allocation (" + std::to_string(range) +
                               " bytes)");
  }
  Napi::Object out = Napi::Object::New(env);
  if (pointer.pool != 0) {
    auto pool = reinterpret_cast<rmmjs_CUmemoryPool>(pointer.pool);
    if (!PoolSharesDescriptors(driver, pool)) {
      ThrowInvalidValue(env,
                        "The argument \"buffer\" comes from a CUDA memory pool created without IPC (the default pool, "
                        "or a CudaAsyncMemoryResource without { enableIpc: true }), which CUDA IPC cannot share");
    }
    rmmjs_CUmemPoolPtrExportData data{};
    result = driver->cuMemPoolExportPointer(&data, base);
    if (result != RMMJS_CUDA_SUCCESS) js::Check(env, FailCuda(result, "cuMemPoolExportPointer"));
    out.Set("kind", "pool");
    out.Set("handle", Hex(data.reserved, sizeof(data.reserved)));
    out.Set("pool", PoolId(pointer.pool));
  } else {
    rmmjs_CUipcMemHandle handle{};
    result = driver->cuIpcGetMemHandle(&handle, base);
    if (result != RMMJS_CUDA_SUCCESS) js::Check(env, FailCuda(result, "cuIpcGetMemHandle"));
    out.Set("kind", "memory");
    out.Set("handle", Hex(handle.reserved, sizeof(handle.reserved)));
  }
  std::string uuid;
  js::Check(env, DeviceUuid(pointer.device, &uuid));
  out.Set("offset", Napi::Number::New(env, static_cast<double>(ptr - base)));
  out.Set("deviceUuid", uuid);
  return out;
}

// newLeaseGuard() -> [guard handle, { path, file, slot }]
Napi::Value NewLeaseGuard(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Lease lease;
  rmmjs_buffer_guard* guard = nullptr;
  js::Check(env, NewLease(&lease, &guard));
  Napi::Object described = Napi::Object::New(env);
  described.Set("path", lease.path);
  described.Set("file", lease.file);
  described.Set("slot", Napi::Number::New(env, static_cast<double>(lease.slot)));
  Napi::Array out = Napi::Array::New(env, 2);
  out.Set(0u, js::WrapBufferGuard(env, guard));
  out.Set(1u, described);
  return out;
}

Napi::Value LeaseActive(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(),
                            interop::LeaseActive(static_cast<uint64_t>(info[0].As<Napi::Number>().Int64Value())));
}

Napi::Value ProcessToken(const Napi::CallbackInfo& info) {
  return Napi::String::New(info.Env(), interop::ProcessToken());
}

}  // namespace rmmjs::interop
