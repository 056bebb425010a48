#include "state.h"

#include <sys/mman.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace fake {
namespace {

constexpr int kMaxDevices = 64;

long long EnvInteger(const char* name, long long fallback, long long min, long long max) {
  const char* text = std::getenv(name);
  if (text == nullptr || text[0] == '\0') return fallback;
  long long value = 0;
  if (!ParseInteger(text, min, max, &value)) {
    std::fprintf(stderr, "libfakecuda: ignoring %s=%s (want an integer in [%lld, %lld])\n", name, text, min, max);
    return fallback;
  }
  return value;
}

// RMMJS_FAKE_CUDA_FAIL: comma-separated symbol:nth:error entries.
void ArmFaultsFromEnv(State& state) {
  const char* text = std::getenv("RMMJS_FAKE_CUDA_FAIL");
  if (text == nullptr) return;
  std::stringstream entries(text);
  std::string entry;
  while (std::getline(entries, entry, ',')) {
    if (entry.empty()) continue;
    size_t first = entry.find(':');
    size_t second = first == std::string::npos ? first : entry.find(':', first + 1);
    Symbol symbol{};
    long long nth = 0;
    int error = 0;
    std::string why = "want symbol:nth:error";
    if (second != std::string::npos && FindSymbol(entry.substr(0, first), &symbol, &why) &&
        ParseInteger(entry.substr(first + 1, second - first - 1), 1, INT64_MAX, &nth) &&
        ParseErrorCode(entry.substr(second + 1), &error)) {
      state.ArmFault(symbol, uint64_t(nth), error, false);
    } else {
      std::fprintf(stderr, "libfakecuda: ignoring RMMJS_FAKE_CUDA_FAIL entry '%s' (%s)\n", entry.c_str(), why.c_str());
    }
  }
}

State* CreateState() {
  auto* state = new State();
  int count = int(EnvInteger("RMMJS_FAKE_CUDA_DEVICES", 2, 0, kMaxDevices));
  size_t budget = size_t(EnvInteger("RMMJS_FAKE_CUDA_MEMORY", 268435456, 0, INT64_MAX));
  int pageable = int(EnvInteger("RMMJS_FAKE_CUDA_PAGEABLE", 0, INT32_MIN, INT32_MAX));
  int ipc_handle_types = int(EnvInteger("RMMJS_FAKE_CUDA_IPC_HANDLE_TYPES", 1, INT32_MIN, INT32_MAX));
  state->driver_version = int(EnvInteger("RMMJS_FAKE_CUDA_DRIVER_VERSION", 13000, 0, INT32_MAX));
  state->devices.resize(count);
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    Device& device = state->devices[ordinal];
    device.budget = budget;
    device.attributes = {
        {RMMJS_CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS, pageable},
        {RMMJS_CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS, 1},
        {RMMJS_CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, 1},
        {RMMJS_CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES, ipc_handle_types},
        {kAttributeUnifiedAddressing, 1},
        {kAttributeComputeCapabilityMajor, 9},
        {kAttributeComputeCapabilityMinor, 0},
    };
    device.primary_context.reset(new CUctx_st{ordinal, 0});
    device.default_pool.reset(new CUmemPoolHandle_st{ordinal, true, RMMJS_CU_MEM_HANDLE_TYPE_NONE, 0, 0});
  }
  ArmFaultsFromEnv(*state);
  return state;
}

}  // namespace

State& Global() {
  static State* state = CreateState();
  return *state;
}

CUctx_st*& CurrentContext() {
  thread_local CUctx_st* context = nullptr;
  return context;
}

int CurrentDevice() {
  CUctx_st* context = CurrentContext();
  return context == nullptr ? -1 : context->device;
}

bool ParseInteger(const std::string& text, long long min, long long max, long long* value) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  long long parsed = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || parsed < min || parsed > max) return false;
  *value = parsed;
  return true;
}

bool FindSymbol(const std::string& name, Symbol* symbol, std::string* why) {
  for (size_t i = 0; i < kSymbolCount; ++i) {
    if (name == kSymbolNames[i]) {
      *symbol = Symbol(i);
      return true;
    }
  }
  *why = "unknown driver symbol '" + name + "'";
  // A common slip: the unversioned name of a versioned symbol.
  static const char* const kPlainNames[] = {
#define RMMJS_FAKE_PLAIN_NAME(name, symbol, ret, args) #name,
      RMMJS_FAKE_ALL_FUNCTIONS(RMMJS_FAKE_PLAIN_NAME)
#undef RMMJS_FAKE_PLAIN_NAME
  };
  for (size_t i = 0; i < kSymbolCount; ++i) {
    if (name == kPlainNames[i] && name != kSymbolNames[i]) {
      *why += std::string(" (did you mean ") + kSymbolNames[i] + "?)";
    }
  }
  return false;
}

int State::Attribute(int device, int attribute) const {
  const std::map<int, int>& attributes = devices[device].attributes;
  auto found = attributes.find(attribute);
  return found == attributes.end() ? 0 : found->second;
}

int State::CheckStream(rmmjs_CUstream stream) const {
  // 0 (the NULL stream), CU_STREAM_LEGACY (1) and CU_STREAM_PER_THREAD (2) always exist but,
  // as in the driver, mean the current context's stream, so they need one.
  if (reinterpret_cast<uintptr_t>(stream) <= 2) {
    return CurrentContext() != nullptr ? kSuccess : kInvalidContext;
  }
  return live_streams.count(stream) != 0 ? kSuccess : kInvalidHandle;
}

int State::CheckStreamInCurrentContext(rmmjs_CUstream stream) const {
  if (int result = CheckStream(stream)) return result;
  if (reinterpret_cast<uintptr_t>(stream) <= 2) return kSuccess;
  return CurrentContext() != nullptr && stream->device == CurrentDevice() ? kSuccess : kInvalidValue;
}

int State::CheckEvent(rmmjs_CUevent event) const { return live_events.count(event) != 0 ? kSuccess : kInvalidHandle; }

bool State::ValidPool(const CUmemPoolHandle_st* pool) const {
  if (live_pools.count(pool) != 0) return true;
  for (const Device& device : devices) {
    if (device.default_pool.get() == pool) return true;
  }
  return false;
}

AllocationMap::iterator State::Containing(uintptr_t address) {
  auto after = allocations.upper_bound(address);
  if (after == allocations.begin()) return allocations.end();
  auto candidate = std::prev(after);
  return address - candidate->first < candidate->second.size ? candidate : allocations.end();
}

int State::CheckRange(uintptr_t address, size_t bytes) {
  auto allocation = Containing(address);
  if (allocation == allocations.end()) return kSuccess;
  size_t offset = address - allocation->first;
  return bytes <= allocation->second.size - offset ? kSuccess : kInvalidValue;
}

int State::Allocate(int device, size_t bytes, AllocationKind kind, CUmemPoolHandle_st* pool, uintptr_t* out) {
  if (bytes == 0) return kInvalidValue;
  Device& owner = devices[device];
  bool counted = kind != AllocationKind::kPinnedHost;
  if (counted && (owner.used > owner.budget || bytes > owner.budget - owner.used)) {
    return kOutOfMemory;
  }
  size_t rounded = (bytes + kAllocationAlignment - 1) / kAllocationAlignment * kAllocationAlignment;
  void* memory = nullptr;
  if (rounded >= bytes) {
    memory = counted ? owner.heap.Allocate(rounded) : std::aligned_alloc(kAllocationAlignment, rounded);
  }
  if (memory == nullptr) return kOutOfMemory;
  uintptr_t address = reinterpret_cast<uintptr_t>(memory);
  allocations.emplace(address, Allocation{bytes, device, kind, pool, RMMJS_CU_MEM_LOCATION_TYPE_INVALID, -2,
                                          RMMJS_CU_MEM_LOCATION_TYPE_INVALID, -2, 0, next_serial++});
  if (counted) owner.used += bytes;
  if (pool != nullptr) ++pool->live_allocations;
  *out = address;
  return kSuccess;
}

AllocationMap::iterator State::RecordForeign(uintptr_t address, size_t size, int device, AllocationKind kind,
                                             CUmemPoolHandle_st* pool) {
  if (pool != nullptr) ++pool->live_allocations;
  return allocations
      .emplace(address, Allocation{size, device, kind, pool, RMMJS_CU_MEM_LOCATION_TYPE_INVALID, -2,
                                   RMMJS_CU_MEM_LOCATION_TYPE_INVALID, -2, 0, next_serial++})
      .first;
}

void State::Release(AllocationMap::iterator allocation) {
  const Allocation& record = allocation->second;
  if (record.pool != nullptr) --record.pool->live_allocations;
  void* memory = reinterpret_cast<void*>(allocation->first);
  switch (record.kind) {
    case AllocationKind::kPinnedHost:
      std::free(memory);
      break;
    case AllocationKind::kIpcMapped:
      ipc_opened.erase(record.ipc_handle);
      munmap(record.mapping, record.mapping_length);
      break;
    case AllocationKind::kPoolImported:
      break;  // the imported pool's mapping stays
    default: {
      devices[record.device].used -= record.size;
      size_t rounded = (record.size + kAllocationAlignment - 1) / kAllocationAlignment * kAllocationAlignment;
      devices[record.device].heap.Free(memory, rounded);
    }
  }
  allocations.erase(allocation);
}

int State::CountCallAndTakeFault(Symbol symbol) {
  uint64_t call = ++calls[size_t(symbol)];
  for (auto fault = faults.begin(); fault != faults.end(); ++fault) {
    if (fault->symbol != symbol) continue;
    if (fault->always) return fault->error;
    if (fault->call == call) {
      int error = fault->error;
      faults.erase(fault);
      return error;
    }
  }
  return kSuccess;
}

void State::ArmFault(Symbol symbol, uint64_t nth, int error, bool always) {
  faults.push_back(Fault{symbol, calls[size_t(symbol)] + nth, error, always});
}

Entry::Entry(Symbol symbol, Needs needs) : state_(Global()), lock_(state_.mutex) {
  status_ = state_.CountCallAndTakeFault(symbol);
  if (status_ == kSuccess && needs == Needs::kInit && !state_.initialized) {
    status_ = kNotInitialized;
  }
}

}  // namespace fake

// Taking every entry point's address turns one that this library lacks into a link error
// (-Wl,--no-undefined) instead of a symbol that core cannot find at run time.
extern "C" __attribute__((used)) const void* const rmmjs_fake_entry_points[] = {
#define RMMJS_FAKE_ADDRESS(name, symbol, ret, args) reinterpret_cast<const void*>(&name),
    RMMJS_FAKE_ALL_FUNCTIONS(RMMJS_FAKE_ADDRESS)
#undef RMMJS_FAKE_ADDRESS
};
