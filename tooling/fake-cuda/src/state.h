// The fake driver's state: devices, allocations, handles, call counters and armed faults, all
// behind one global mutex. Every exported function starts with an Entry (below).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "device_heap.h"
#include "exports.h"

// The driver's opaque handle types (declared, never defined, by rmmjs/cuda_driver.h).
struct CUctx_st {
  int device;
  unsigned retain_count;
};
struct CUstream_st {
  int device;
  unsigned flags;
  int priority;
  unsigned long long id;  // cuStreamGetId: never reused
};
struct CUevent_st {
  int device;
  unsigned flags;
};
struct CUmemPoolHandle_st {
  int device;
  bool is_default;
  int handle_types;
  uint64_t release_threshold;
  size_t live_allocations;  // kept after destruction: the pool lives on until they are freed
  uint64_t serial = 0;      // created pools: identifies the pool in what it exports
  // A pool imported from another process (cuMemPoolImportFromShareableHandle): the exporter's pid
  // and pool serial, and its whole device heap mapped here.
  bool imported = false;
  int exporter_pid = 0;
  uint64_t exporter_serial = 0;
  char* mapping = nullptr;
};

namespace fake {

// Codes and values that rmmjs/cuda_driver.h does not name.
constexpr int kSuccess = RMMJS_CUDA_SUCCESS;
constexpr int kInvalidValue = RMMJS_CUDA_ERROR_INVALID_VALUE;
constexpr int kOutOfMemory = RMMJS_CUDA_ERROR_OUT_OF_MEMORY;
constexpr int kNotInitialized = RMMJS_CUDA_ERROR_NOT_INITIALIZED;
constexpr int kNoDevice = RMMJS_CUDA_ERROR_NO_DEVICE;
constexpr int kInvalidDevice = RMMJS_CUDA_ERROR_INVALID_DEVICE;
constexpr int kInvalidContext = RMMJS_CUDA_ERROR_INVALID_CONTEXT;
constexpr int kMapFailed = RMMJS_CUDA_ERROR_MAP_FAILED;
constexpr int kAlreadyMapped = RMMJS_CUDA_ERROR_ALREADY_MAPPED;
constexpr int kInvalidHandle = RMMJS_CUDA_ERROR_INVALID_HANDLE;
constexpr int kNotFound = RMMJS_CUDA_ERROR_NOT_FOUND;
constexpr int kNotSupported = RMMJS_CUDA_ERROR_NOT_SUPPORTED;

constexpr int kAttributeUnifiedAddressing = 41;
constexpr int kAttributeComputeCapabilityMajor = 75;
constexpr int kAttributeComputeCapabilityMinor = 76;
constexpr int kStreamPriorityLeast = 0;
constexpr int kStreamPriorityGreatest = -5;
constexpr size_t kAllocationAlignment = 512;

// One enumerator per exported driver function, named by its C++ name (cuMemAlloc, not _v2).
enum class Symbol : int {
#define RMMJS_FAKE_ENUMERATOR(name, symbol, ret, args) name,
  RMMJS_FAKE_ALL_FUNCTIONS(RMMJS_FAKE_ENUMERATOR)
#undef RMMJS_FAKE_ENUMERATOR
};

// Exported names (cuMemAlloc_v2), indexed by Symbol.
inline constexpr const char* kSymbolNames[] = {
#define RMMJS_FAKE_SYMBOL_NAME(name, symbol, ret, args) symbol,
    RMMJS_FAKE_ALL_FUNCTIONS(RMMJS_FAKE_SYMBOL_NAME)
#undef RMMJS_FAKE_SYMBOL_NAME
};
inline constexpr size_t kSymbolCount = sizeof(kSymbolNames) / sizeof(kSymbolNames[0]);

// kIpcMapped: another process's cuMemAlloc memory opened with cuIpcOpenMemHandle_v2;
// kPoolImported: another process's pool allocation imported with cuMemPoolImportPointer. Both are
// that process's memory: they are not counted against this process's budgets.
enum class AllocationKind { kDevice, kManaged, kPinnedHost, kPool, kIpcMapped, kPoolImported };

struct Allocation {
  size_t size;
  int device;
  AllocationKind kind;
  CUmemPoolHandle_st* pool;  // kPool and kPoolImported only
  int prefetch_type;         // managed only: where the last prefetch went
  int prefetch_id;
  int preferred_type;  // managed only: the preferred location advised (cuMemAdvise_v2)
  int preferred_id;
  unsigned host_flags = 0;  // pinned host only: the CU_MEMHOSTALLOC_* flags
  uint64_t serial = 0;      // never reused: an IPC handle of freed and reallocated memory differs
  // kIpcMapped: the mapping (page aligned, around the memory), the opens not yet closed (the
  // driver counts them) and the handle it was opened from.
  void* mapping = nullptr;
  size_t mapping_length = 0;
  int opens = 0;
  std::string ipc_handle;
};
using AllocationMap = std::map<uintptr_t, Allocation>;

// A host range page-locked by cuMemHostRegister_v2 (the memory is the caller's).
struct Registration {
  size_t size;
  unsigned flags;  // CU_MEMHOSTREGISTER_*
  int device;      // of the context it was registered in
};
using RegistrationMap = std::map<uintptr_t, Registration>;

struct Device {
  DeviceHeap heap;  // device, managed and pool allocations
  size_t budget;
  size_t used = 0;                // bytes of device, managed and pool allocations
  std::map<int, int> attributes;  // absent means 0
  std::unique_ptr<CUctx_st> primary_context;
  std::unique_ptr<CUmemPoolHandle_st> default_pool;
};

struct Fault {
  Symbol symbol;
  uint64_t call;  // fails when the symbol's call counter reaches this (one-shot faults)
  int error;
  bool always;
};

struct State {
  std::mutex mutex;
  bool initialized = false;
  int driver_version = 0;
  std::vector<Device> devices;
  AllocationMap allocations;
  RegistrationMap registrations;

  // Handle objects are never freed, so use after destroy is caught. The live sets say which are
  // valid. Events and pools never reuse a destroyed one's address; a stream created on a thread
  // takes the handle of the stream that thread destroyed last, if any (streams.cc).
  std::vector<std::unique_ptr<CUstream_st>> all_streams;
  unsigned long long next_stream_id = 1000;
  std::set<const CUstream_st*> live_streams;
  std::vector<std::unique_ptr<CUevent_st>> all_events;
  std::set<const CUevent_st*> live_events;
  std::vector<std::unique_ptr<CUmemPoolHandle_st>> all_pools;  // created ones, not defaults
  std::set<const CUmemPoolHandle_st*> live_pools;
  uint64_t next_serial = 1;  // of allocations and created pools
  // cuIpcOpenMemHandle_v2: the handles open in this process, and where.
  std::map<std::string, uintptr_t> ipc_opened;

  std::array<uint64_t, kSymbolCount> calls{};
  std::vector<Fault> faults;

  bool ValidDevice(int device) const { return device >= 0 && device < int(devices.size()); }
  int Attribute(int device, int attribute) const;
  // kSuccess, or what a function given this stream must return.
  int CheckStream(rmmjs_CUstream stream) const;
  // For calls that queue work: the stream must also belong to the current context (the real
  // driver answers CUDA_ERROR_INVALID_VALUE to a copy on another device's stream).
  int CheckStreamInCurrentContext(rmmjs_CUstream stream) const;
  int CheckEvent(rmmjs_CUevent event) const;
  // A default pool or a created pool not yet destroyed.
  bool ValidPool(const CUmemPoolHandle_st* pool) const;

  // The allocation that contains address, or allocations.end().
  AllocationMap::iterator Containing(uintptr_t address);
  // kInvalidValue where [address, address + bytes) starts inside an allocation and runs past
  // its end; addresses outside every allocation are host memory and always pass.
  int CheckRange(uintptr_t address, size_t bytes);
  int Allocate(int device, size_t bytes, AllocationKind kind, CUmemPoolHandle_st* pool, uintptr_t* out);
  // Records memory of another process mapped here (kIpcMapped, kPoolImported).
  AllocationMap::iterator RecordForeign(uintptr_t address, size_t size, int device, AllocationKind kind,
                                        CUmemPoolHandle_st* pool);
  void Release(AllocationMap::iterator allocation);

  // Counts the call and returns the error of a fault armed for it, or kSuccess.
  int CountCallAndTakeFault(Symbol symbol);
  // Arms a fault on the nth call of symbol from now (nth >= 1), or on every call.
  void ArmFault(Symbol symbol, uint64_t nth, int error, bool always);
};

// Created on first use from the environment; never destroyed (calls may come during exit).
State& Global();

// This thread's current context (nullptr if none) and its device (-1 if none).
CUctx_st*& CurrentContext();
int CurrentDevice();

// A decimal integer in [min, max], the whole text.
bool ParseInteger(const std::string& text, long long min, long long max, long long* value);
// Looks an exported name (cuMemAlloc_v2) up; on failure *why says what is wrong.
bool FindSymbol(const std::string& name, Symbol* symbol, std::string* why);
// A CUDA error code given as a number or a name (CUDA_ERROR_OUT_OF_MEMORY).
bool ParseErrorCode(const std::string& text, int* code);
// The real driver's name and description of a code, or nullptr for both when unknown.
const char* ErrorName(int code);
const char* ErrorDescription(int code);

enum class Needs { kNothing, kInit };

// Takes the global lock, counts the call and checks for an injected fault, then (unless
// needs is kNothing) that cuInit has succeeded. status() is what the function must return
// at once if not kSuccess.
class Entry {
 public:
  explicit Entry(Symbol symbol, Needs needs = Needs::kInit);
  int status() const { return status_; }
  State& state() { return state_; }
  void Unlock() { lock_.unlock(); }

 private:
  State& state_;
  std::unique_lock<std::mutex> lock_;
  int status_;
};

}  // namespace fake
