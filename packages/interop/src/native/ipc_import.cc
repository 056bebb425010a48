// openIpcHandle: another process's memory as a DeviceBuffer. A mapping is opened once per handle
// and device and shared by every view of it (many buffers share one allocation, each at its own
// offset); the last view to go closes it (cuIpcCloseMemHandle), or frees the imported pool
// pointer, which never frees the exporter's memory. A view also holds the exporter's lease (see
// ipc_leases.h) while it lives. Pools shared with sendIpcPool are imported once and named by the
// exporter's id.
#include <unistd.h>

#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "driver_support.h"
#include "interop.h"
#include "ipc_common.h"
#include "ipc_leases.h"
#include "rmmjs/resource.hpp"

namespace rmmjs::interop {
namespace {

// A pool imported from another process (cuMemPoolImportFromShareableHandle); destroyed when the
// registry and every view of it let go.
struct ImportedPool {
  rmmjs_CUmemoryPool pool;
  int device;
  ~ImportedPool() {
    if (pool == nullptr) return;
    DeviceContext context(device);
    CoreApi()->driver()->cuMemPoolDestroy(pool);
  }
};

// One opened allocation of another process.
struct Mapping {
  rmmjs_CUdeviceptr base = 0;
  size_t range = 0;  // its size, 0 where the driver does not say
  int device = 0;
  int views = 0;
  std::shared_ptr<ImportedPool> pool;  // kind "pool"
};

struct Imports {
  std::mutex mutex;
  std::map<std::string, Mapping> mappings;                     // by kind, device, pool and handle
  std::map<std::string, std::shared_ptr<ImportedPool>> pools;  // by the exporter's pool id
};

Imports& State() {
  static auto* imports = new Imports();  // never destroyed: views may go during exit
  return *imports;
}

// Closes a mapping whose last view went (outside the lock: a driver call).
void Close(Mapping mapping) {
  const rmmjs_driver_api* driver = CoreApi()->driver();
  DeviceContext context(mapping.device);
  int result = mapping.pool ? driver->cuMemFree(mapping.base) : driver->cuIpcCloseMemHandle(mapping.base);
  if (result != RMMJS_CUDA_SUCCESS) {
    LogAt(RMMJS_LOG_ERROR, std::string("closing a CUDA IPC view failed: ") + DescribeCudaError(result));
  }
}

void ReleaseMapping(const std::string& key) {
  Imports& imports = State();
  Mapping closing;
  {
    std::lock_guard<std::mutex> lock(imports.mutex);
    auto found = imports.mappings.find(key);
    if (found == imports.mappings.end() || --found->second.views > 0) return;
    closing = std::move(found->second);
    imports.mappings.erase(found);
  }
  Close(std::move(closing));
}

// The memory of one view.
struct View {
  rmmjs_memory memory;  // first: an rmmjs_memory* of a view is a View*
  std::string key;
  int lease;  // the lease's file descriptor, or -1

  static void Release(rmmjs_memory* memory) {
    auto* view = reinterpret_cast<View*>(memory);
    ReleaseMapping(view->key);
    if (view->lease >= 0) close(view->lease);  // only now may the exporter free the memory
    delete view;
  }
};

// Opens (or finds) the mapping `key` of a handle; *mapping is a copy. Holds the lock throughout,
// so that one handle is never opened twice at once.
rmmjs_status Map(const rmmjs_driver_api* driver, const std::string& key, const std::string& kind,
                 const std::string& handle_hex, const std::string& pool_id, int device, Mapping* mapping) {
  Imports& imports = State();
  std::lock_guard<std::mutex> lock(imports.mutex);
  auto found = imports.mappings.find(key);
  if (found != imports.mappings.end()) {
    ++found->second.views;
    *mapping = found->second;
    return RMMJS_OK;
  }
  Mapping opened;
  opened.device = device;
  DeviceContext context(device);
  RMMJS_TRY(context.status());
  if (kind == "pool") {
    auto pool = imports.pools.find(pool_id);
    if (pool == imports.pools.end()) {
      return Fail(RMMJS_ERR_LOGIC, "openIpcHandle: the handle's memory pool (" + pool_id +
                                       ") was not received by this process: receive it first (receiveIpcPool, from "
                                       "the exporter's sendIpcPool)");
    }
    opened.pool = pool->second;
    rmmjs_CUmemPoolPtrExportData data{};
    FromHex(handle_hex, data.reserved, sizeof(data.reserved));
    int result = driver->cuMemPoolImportPointer(&opened.base, opened.pool->pool, &data);
    if (result != RMMJS_CUDA_SUCCESS) return FailCuda(result, "cuMemPoolImportPointer");
  } else {
    rmmjs_CUipcMemHandle data{};
    FromHex(handle_hex, data.reserved, sizeof(data.reserved));
    int result = driver->cuIpcOpenMemHandle(&opened.base, data, RMMJS_CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
    if (result == RMMJS_CUDA_ERROR_INVALID_CONTEXT) {
      return CoreApi()->set_error(RMMJS_ERR_CUDA, result,
                                  "openIpcHandle: CUDA opens an IPC handle only in another process than the one "
                                  "that exported it (cuIpcOpenMemHandle_v2: CUDA_ERROR_INVALID_CONTEXT); this "
                                  "process can use the exported buffer itself");
    }
    if (result != RMMJS_CUDA_SUCCESS) return FailCuda(result, "cuIpcOpenMemHandle_v2");
  }
  // The size of what was opened, where the driver says (else the handle's word is taken).
  if (driver->cuMemGetAddressRange(nullptr, &opened.range, opened.base) != RMMJS_CUDA_SUCCESS) opened.range = 0;
  opened.views = 1;
  *mapping = opened;
  imports.mappings.emplace(key, std::move(opened));
  return RMMJS_OK;
}

std::string StringArg(const Napi::Value& value) { return value.IsString() ? value.As<Napi::String>().Utf8Value() : ""; }

}  // namespace

// openIpc(kind, handle, offset, size, deviceUuid, pool | null, process | null, lease | null) -> a
// memory handle for adoptMemory.
Napi::Value OpenIpc(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  rmmjs_status status = RMMJS_OK;
  const rmmjs_driver_api* driver = Driver(&status);
  js::Check(env, status);
  std::string kind = StringArg(info[0]);
  std::string handle = StringArg(info[1]);
  auto offset = static_cast<size_t>(info[2].As<Napi::Number>().Int64Value());
  auto size = static_cast<size_t>(info[3].As<Napi::Number>().Int64Value());
  std::string uuid = StringArg(info[4]);
  std::string pool_id = StringArg(info[5]);
  if (StringArg(info[6]) == ProcessToken()) {
    js::Check(env, CoreApi()->set_error(RMMJS_ERR_CUDA, RMMJS_CUDA_ERROR_INVALID_CONTEXT,
                                        "openIpcHandle: the handle was exported by this process, and CUDA opens an "
                                        "IPC handle only in another process (CUDA_ERROR_INVALID_CONTEXT); this "
                                        "process can use the exported buffer itself"));
  }
  int device = -1;
  js::Check(env, DeviceWithUuid(uuid, &device));
  if (device < 0) {
    ThrowInvalidValue(
        env, "The argument \"handle\" is memory of device " + uuid + ", which is not a device of this process");
  }
  int lease = -1;  // taken first: a lease refused opens nothing
  if (info[7].IsObject()) {
    Napi::Object described = info[7].As<Napi::Object>();
    std::string refusal;
    lease = TakeLease({StringArg(described.Get("path")), StringArg(described.Get("file")),
                       static_cast<uint64_t>(described.Get("slot").As<Napi::Number>().Int64Value())},
                      &refusal);
    if (!refusal.empty()) ThrowInvalidValue(env, refusal);
  }
  std::string key = kind + "/" + std::to_string(device) + "/" + pool_id + "/" + handle;
  Mapping mapping;
  rmmjs_status mapped = Map(driver, key, kind, handle, pool_id, device, &mapping);
  if (mapped != RMMJS_OK) {
    if (lease >= 0) close(lease);
    js::ThrowStatus(env, mapped);
  }
  if (mapping.range != 0 && (offset > mapping.range || size > mapping.range - offset)) {
    ReleaseMapping(key);
    if (lease >= 0) close(lease);
    throw Napi::Error(env, js::MakeError(env, RMMJS_ERR_OUT_OF_RANGE,
                                         "The handle's offset (" + std::to_string(offset) + ") and size (" +
                                             std::to_string(size) + ") run past the end of the shared allocation (" +
                                             std::to_string(mapping.range) + " bytes)",
                                         0, "ERR_OUT_OF_RANGE"));
  }
  auto* view =
      new View{{sizeof(rmmjs_memory), reinterpret_cast<void*>(mapping.base + offset), size, device, 0, View::Release},
               key,
               lease};
  return js::WrapMemory(env, &view->memory);
}

// importPool(fd, poolId, deviceUuid) -> device: imports a pool another process sent (the
// descriptor is closed, whatever happens) under the exporter's id.
Napi::Value ImportPool(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int fd = info[0].As<Napi::Number>().Int32Value();
  std::string pool_id = StringArg(info[1]);
  std::string uuid = StringArg(info[2]);
  auto imported = std::make_shared<ImportedPool>();
  rmmjs_status status = RMMJS_OK;
  const rmmjs_driver_api* driver = Driver(&status);
  int device = -1;
  if (status == RMMJS_OK) status = DeviceWithUuid(uuid, &device);
  if (status == RMMJS_OK && device < 0) {
    close(fd);
    ThrowInvalidValue(
        env, "receiveIpcPool: the pool is memory of device " + uuid + ", which is not a device of this process");
  }
  if (status == RMMJS_OK) {
    DeviceContext context(device);
    status = context.status();
    int result = RMMJS_CUDA_SUCCESS;
    if (status == RMMJS_OK) {
      result = driver->cuMemPoolImportFromShareableHandle(&imported->pool, reinterpret_cast<void*>(intptr_t{fd}),
                                                          RMMJS_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
    }
    if (status == RMMJS_OK && result != RMMJS_CUDA_SUCCESS) {
      status = FailCuda(result, "cuMemPoolImportFromShareableHandle");
    }
  }
  close(fd);
  if (status != RMMJS_OK) js::ThrowStatus(env, status);  // imported->pool is null: nothing to destroy
  imported->device = device;
  Imports& imports = State();
  {
    std::lock_guard<std::mutex> lock(imports.mutex);
    imports.pools[pool_id] = std::move(imported);  // a pool received again replaces the old one
  }
  return Napi::Number::New(env, device);
}

// closePool(poolId) -> whether it was there: views of it keep it until they go.
Napi::Value ClosePool(const Napi::CallbackInfo& info) {
  std::string pool_id = StringArg(info[0]);
  std::shared_ptr<ImportedPool> closing;
  Imports& imports = State();
  {
    std::lock_guard<std::mutex> lock(imports.mutex);
    auto found = imports.pools.find(pool_id);
    if (found == imports.pools.end()) return Napi::Boolean::New(info.Env(), false);
    closing = std::move(found->second);
    imports.pools.erase(found);
  }
  return Napi::Boolean::New(info.Env(), true);  // `closing` goes here, outside the lock
}

// openMappings() -> how many allocations of other processes this process has open.
Napi::Value OpenMappings(const Napi::CallbackInfo& info) {
  Imports& imports = State();
  std::lock_guard<std::mutex> lock(imports.mutex);
  return Napi::Number::New(info.Env(), static_cast<double>(imports.mappings.size()));
}

}  // namespace rmmjs::interop
