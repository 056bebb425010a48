// CUDA IPC between processes: legacy handles (cuIpcGetMemHandle / cuIpcOpenMemHandle_v2) and
// memory pools shared through a POSIX file descriptor. Each device heap is a memory file (see
// device_heap.h), so another process maps the very bytes: what one process writes, the other
// reads. The handles and export data are this fake's own 64-byte layouts, which carry the
// exporter's pid and the heap's file descriptor there (opened as /proc/<pid>/fd/<fd>); like the
// driver's, they mean nothing to a process that is not on the same machine.
//
// The emulation is partial: an importer cannot see the exporter's state, so opening a handle of
// memory the exporter has freed maps whatever is there now (the driver refuses, or maps the old
// memory until it is closed), and the exporter's free of memory that another process still maps
// goes unnoticed (undefined behaviour in the driver).
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

#include "state.h"

using namespace fake;

namespace {

constexpr unsigned kLazyEnablePeerAccess = RMMJS_CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS;

// What cuIpcGetMemHandle writes into the 64 bytes of a CUipcMemHandle.
struct MemHandle {
  char magic[8];  // "FAKEIPC1"
  int32_t pid;
  int32_t heap_fd;
  int32_t device;
  uint32_t reserved;
  uint64_t offset;  // of the allocation in the exporter's device heap
  uint64_t size;
  uint64_t serial;  // of the allocation: freed and reallocated memory gets another handle
};
static_assert(sizeof(MemHandle) <= sizeof(rmmjs_CUipcMemHandle), "fits a CUipcMemHandle");

// The start of the file cuMemPoolExportToShareableHandle returns (a memfd of its own).
struct PoolShare {
  char magic[8];  // "FAKEPOOL"
  int32_t pid;
  int32_t heap_fd;
  int32_t device;
  uint32_t reserved;
  uint64_t pool_serial;
};

// What cuMemPoolExportPointer writes into a CUmemPoolPtrExportData.
struct PoolPointer {
  char magic[8];  // "FAKEPPTR"
  int32_t pid;
  int32_t device;
  uint64_t pool_serial;
  uint64_t offset;  // in the exporter's device heap
  uint64_t size;
};
static_assert(sizeof(PoolPointer) <= sizeof(rmmjs_CUmemPoolPtrExportData), "fits the export data");

template <class T>
bool HasMagic(const T& data, const char* magic) {
  return std::memcmp(data.magic, magic, sizeof(data.magic)) == 0;
}

size_t PageSize() { return static_cast<size_t>(sysconf(_SC_PAGESIZE)); }

}  // namespace

extern "C" rmmjs_CUresult cuIpcGetMemHandle(rmmjs_CUipcMemHandle* handle, rmmjs_CUdeviceptr pointer) {
  Entry call(Symbol::cuIpcGetMemHandle);
  if (call.status() != kSuccess) return call.status();
  State& state = call.state();
  if (handle == nullptr) return kInvalidValue;
  // The base of a cuMemAlloc allocation: not managed, pool or host memory, nor a mapping of
  // another process's memory.
  auto allocation = state.allocations.find(pointer);
  if (allocation == state.allocations.end() || allocation->second.kind != AllocationKind::kDevice) {
    return kInvalidValue;
  }
  const Allocation& record = allocation->second;
  const DeviceHeap& heap = state.devices[record.device].heap;
  if (heap.fd() < 0) return kNotSupported;
  MemHandle data{};
  std::memcpy(data.magic, "FAKEIPC1", 8);
  data.pid = getpid();
  data.heap_fd = heap.fd();
  data.device = record.device;
  data.offset = heap.OffsetOf(reinterpret_cast<const void*>(pointer));
  data.size = record.size;
  data.serial = record.serial;
  std::memset(handle, 0, sizeof(*handle));
  std::memcpy(handle->reserved, &data, sizeof(data));
  return kSuccess;
}

// The driver returns CUDA_ERROR_INVALID_CONTEXT for a handle of the calling process itself, and
// counts repeated opens of one handle, returning the same address.
extern "C" rmmjs_CUresult cuIpcOpenMemHandle(rmmjs_CUdeviceptr* pointer, rmmjs_CUipcMemHandle handle,
                                             unsigned int flags) {
  Entry call(Symbol::cuIpcOpenMemHandle);
  if (call.status() != kSuccess) return call.status();
  State& state = call.state();
  if (pointer == nullptr || flags != kLazyEnablePeerAccess) return kInvalidValue;
  if (CurrentContext() == nullptr) return kInvalidContext;
  MemHandle data{};
  std::memcpy(&data, handle.reserved, sizeof(data));
  if (!HasMagic(data, "FAKEIPC1") || data.size == 0) return kInvalidValue;
  if (data.pid == getpid()) return kInvalidContext;
  std::string key(handle.reserved, sizeof(handle.reserved));
  auto opened = state.ipc_opened.find(key);
  if (opened != state.ipc_opened.end()) {
    ++state.allocations.at(opened->second).opens;
    *pointer = opened->second;
    return kSuccess;
  }
  uint64_t page = PageSize();
  uint64_t start = data.offset / page * page;
  size_t length = (data.offset + data.size - start + page - 1) / page * page;
  void* mapping = MapForeignHeap(data.pid, data.heap_fd, start, length);
  if (mapping == nullptr) return kMapFailed;
  uintptr_t address = reinterpret_cast<uintptr_t>(mapping) + (data.offset - start);
  auto allocation = state.RecordForeign(address, data.size, CurrentDevice(), AllocationKind::kIpcMapped, nullptr);
  allocation->second.mapping = mapping;
  allocation->second.mapping_length = length;
  allocation->second.opens = 1;
  allocation->second.ipc_handle = key;
  state.ipc_opened.emplace(key, address);
  *pointer = address;
  return kSuccess;
}

extern "C" rmmjs_CUresult cuIpcCloseMemHandle(rmmjs_CUdeviceptr pointer) {
  Entry call(Symbol::cuIpcCloseMemHandle);
  if (call.status() != kSuccess) return call.status();
  State& state = call.state();
  auto allocation = state.allocations.find(pointer);
  if (allocation == state.allocations.end() || allocation->second.kind != AllocationKind::kIpcMapped) {
    return kInvalidValue;
  }
  if (--allocation->second.opens == 0) state.Release(allocation);
  return kSuccess;
}

// The handle is a file descriptor the caller owns (and closes): a memory file that names the
// pool and the device heap it allocates from.
extern "C" rmmjs_CUresult cuMemPoolExportToShareableHandle(void* handle, rmmjs_CUmemoryPool pool, int handle_type,
                                                           unsigned long long flags) {
  Entry call(Symbol::cuMemPoolExportToShareableHandle);
  if (call.status() != kSuccess) return call.status();
  State& state = call.state();
  if (handle == nullptr || flags != 0 || handle_type != RMMJS_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR ||
      state.live_pools.count(pool) == 0 || pool->imported ||
      (pool->handle_types & RMMJS_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) == 0) {
    return kInvalidValue;
  }
  DeviceHeap& heap = state.devices[pool->device].heap;
  if (heap.fd() < 0) {
    // Nothing allocated from the device yet: reserve its heap so that there is a file to share.
    void* probe = heap.Allocate(kAllocationAlignment);
    if (probe == nullptr) return kOutOfMemory;
    heap.Free(probe, kAllocationAlignment);
    if (heap.fd() < 0) return kNotSupported;
  }
  PoolShare share{};
  std::memcpy(share.magic, "FAKEPOOL", 8);
  share.pid = getpid();
  share.heap_fd = heap.fd();
  share.device = pool->device;
  share.pool_serial = pool->serial;
  int fd = memfd_create("fakecuda-mempool", MFD_CLOEXEC);
  if (fd < 0) return kOutOfMemory;
  if (pwrite(fd, &share, sizeof(share), 0) != static_cast<ssize_t>(sizeof(share))) {
    close(fd);
    return kOutOfMemory;
  }
  *static_cast<int*>(handle) = fd;
  return kSuccess;
}

extern "C" rmmjs_CUresult cuMemPoolImportFromShareableHandle(rmmjs_CUmemoryPool* pool, void* handle, int handle_type,
                                                             unsigned long long flags) {
  Entry call(Symbol::cuMemPoolImportFromShareableHandle);
  if (call.status() != kSuccess) return call.status();
  State& state = call.state();
  if (pool == nullptr || flags != 0 || handle_type != RMMJS_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) {
    return kInvalidValue;
  }
  int fd = static_cast<int>(reinterpret_cast<intptr_t>(handle));
  PoolShare share{};
  if (pread(fd, &share, sizeof(share), 0) != static_cast<ssize_t>(sizeof(share)) || !HasMagic(share, "FAKEPOOL") ||
      share.pid == getpid()) {
    return kInvalidValue;
  }
  void* mapping = MapForeignHeap(share.pid, share.heap_fd, 0, DeviceHeap::kReserved);
  if (mapping == nullptr) return kMapFailed;
  int device = CurrentContext() != nullptr ? CurrentDevice() : 0;
  auto* imported = new CUmemPoolHandle_st{device, false, RMMJS_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0, 0};
  imported->serial = state.next_serial++;
  imported->imported = true;
  imported->exporter_pid = share.pid;
  imported->exporter_serial = share.pool_serial;
  imported->mapping = static_cast<char*>(mapping);
  state.all_pools.emplace_back(imported);
  state.live_pools.insert(imported);
  *pool = imported;
  return kSuccess;
}

extern "C" rmmjs_CUresult cuMemPoolExportPointer(rmmjs_CUmemPoolPtrExportData* data, rmmjs_CUdeviceptr pointer) {
  Entry call(Symbol::cuMemPoolExportPointer);
  if (call.status() != kSuccess) return call.status();
  State& state = call.state();
  if (data == nullptr) return kInvalidValue;
  auto allocation = state.allocations.find(pointer);
  if (allocation == state.allocations.end() || allocation->second.kind != AllocationKind::kPool) {
    return kInvalidValue;
  }
  const Allocation& record = allocation->second;
  if ((record.pool->handle_types & RMMJS_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) == 0) return kInvalidValue;
  PoolPointer exported{};
  std::memcpy(exported.magic, "FAKEPPTR", 8);
  exported.pid = getpid();
  exported.device = record.device;
  exported.pool_serial = record.pool->serial;
  exported.offset = state.devices[record.device].heap.OffsetOf(reinterpret_cast<const void*>(pointer));
  exported.size = record.size;
  std::memset(data, 0, sizeof(*data));
  std::memcpy(data->reserved, &exported, sizeof(exported));
  return kSuccess;
}

extern "C" rmmjs_CUresult cuMemPoolImportPointer(rmmjs_CUdeviceptr* pointer, rmmjs_CUmemoryPool pool,
                                                 rmmjs_CUmemPoolPtrExportData* data) {
  Entry call(Symbol::cuMemPoolImportPointer);
  if (call.status() != kSuccess) return call.status();
  State& state = call.state();
  if (pointer == nullptr || data == nullptr || state.live_pools.count(pool) == 0 || !pool->imported) {
    return kInvalidValue;
  }
  PoolPointer exported{};
  std::memcpy(&exported, data->reserved, sizeof(exported));
  if (!HasMagic(exported, "FAKEPPTR") || exported.pid != pool->exporter_pid ||
      exported.pool_serial != pool->exporter_serial || exported.size == 0 ||
      exported.offset + exported.size > DeviceHeap::kReserved) {
    return kInvalidValue;
  }
  uintptr_t address = reinterpret_cast<uintptr_t>(pool->mapping + exported.offset);
  if (state.allocations.count(address) != 0) return kAlreadyMapped;
  state.RecordForeign(address, exported.size, pool->device, AllocationKind::kPoolImported, pool);
  *pointer = address;
  return kSuccess;
}
