// fromDLPack: takes the tensor out of a capsule and lends the bytes it spans to a DeviceBuffer (an
// rmmjs_memory whose release calls the producer's deleter). A tensor that rmmjs cannot use (an
// unknown major version, another kind of device, a shape that makes no sense) is handed back to
// its producer (the deleter runs) before the error is thrown. Also: what a capsule holds, read
// without consuming it.
#include <algorithm>
#include <string>

#include "dlpack_capsule.h"
#include "interop.h"
#include "rmmjs/napi.hpp"
#include "rmmjs/resource.hpp"

namespace rmmjs::interop {
namespace {

// The memory a consumed tensor lends: released by calling the producer's deleter.
struct ImportedTensor {
  rmmjs_memory memory;  // first: an rmmjs_memory* of an import is an ImportedTensor*
  dlpack::ManagedTensorVersioned* tensor;

  static void Release(rmmjs_memory* memory) {
    auto* imported = reinterpret_cast<ImportedTensor*>(memory);
    DeleteTensor(imported->tensor);
    delete imported;
  }
};

std::string DeviceTypeName(int32_t type) {
  switch (type) {
    case dlpack::kDLCPU:
      return "kDLCPU";
    case dlpack::kDLCUDA:
      return "kDLCUDA";
    case dlpack::kDLCUDAHost:
      return "kDLCUDAHost";
    case dlpack::kDLCUDAManaged:
      return "kDLCUDAManaged";
    default:
      return "device type " + std::to_string(type);
  }
}

// Why rmmjs cannot use the tensor ("" when it can); else its bytes: [*start, *start + *bytes) on
// *device.
std::string Check(const dlpack::ManagedTensorVersioned& managed, uintptr_t* start, size_t* bytes, int* device) {
  if (managed.version.major != dlpack::kMajorVersion) {
    return "holds a DLPack " + std::to_string(managed.version.major) + "." + std::to_string(managed.version.minor) +
           " tensor, and rmmjs reads DLPack 1.x (it implements 1.1)";
  }
  const dlpack::Tensor& tensor = managed.dl_tensor;
  const rmmjs_core_api* core = CoreApi();
  bool cuda = core->driver() != nullptr;
  int32_t type = tensor.device.device_type;
  *device = 0;
  if (type == dlpack::kDLCUDA || type == dlpack::kDLCUDAHost || type == dlpack::kDLCUDAManaged) {
    if (!cuda) return "holds CUDA memory (" + DeviceTypeName(type) + "), and rmmjs runs in host mode (no CUDA)";
    if (type == dlpack::kDLCUDA) {
      int32_t count = 0;
      core->get_device_count(&count);
      if (tensor.device.device_id < 0 || tensor.device.device_id >= count) {
        return "holds memory of CUDA device " + std::to_string(tensor.device.device_id) + ", and this process has " +
               std::to_string(count);
      }
      *device = tensor.device.device_id;
    }
  } else if (type != dlpack::kDLCPU) {
    return "holds memory of " + DeviceTypeName(type) + ", which is neither host nor CUDA memory";
  }
  if (tensor.ndim < 0 || (tensor.ndim > 0 && tensor.shape == nullptr)) return "has an invalid shape";
  if (tensor.dtype.bits == 0 || tensor.dtype.lanes == 0) return "has an invalid dtype (0 bits or 0 lanes)";
  uint64_t element_bits = uint64_t{tensor.dtype.bits} * tensor.dtype.lanes;
  // The elements span offsets [lowest, highest] (in elements) from the start.
  int64_t lowest = 0;
  int64_t highest = 0;
  uint64_t count = 1;
  for (int32_t i = 0; i < tensor.ndim; ++i) {
    int64_t extent = tensor.shape[i];
    if (extent < 0) return "has a negative extent in its shape";
    if (__builtin_mul_overflow(count, static_cast<uint64_t>(extent), &count)) return "has too many elements";
  }
  uint64_t span = 0;
  if (count > 0 && tensor.strides == nullptr) {
    if (__builtin_mul_overflow(count, element_bits, &span)) return "has too many elements";
    span = span / 8 + (span % 8 != 0);
  } else if (count > 0) {
    if (element_bits % 8 != 0) return "has strides and elements of less than a byte, which rmmjs does not take";
    for (int32_t i = 0; i < tensor.ndim; ++i) {
      int64_t reach = 0;
      if (__builtin_mul_overflow(tensor.shape[i] - 1, tensor.strides[i], &reach)) return "has strides that overflow";
      if (__builtin_add_overflow(reach < 0 ? lowest : highest, reach, reach < 0 ? &lowest : &highest)) {
        return "has strides that overflow";
      }
    }
    uint64_t below = uint64_t{0} - static_cast<uint64_t>(lowest);  // |lowest|, also for INT64_MIN
    uint64_t elements = 0;
    if (__builtin_add_overflow(static_cast<uint64_t>(highest), below, &elements) ||
        __builtin_add_overflow(elements, uint64_t{1}, &elements) ||
        __builtin_mul_overflow(elements, element_bits / 8, &span)) {
      return "has strides that overflow";
    }
  }
  uintptr_t first = reinterpret_cast<uintptr_t>(tensor.data);
  if (span > 0 && first == 0) return "has a NULL data pointer for " + std::to_string(span) + " bytes";
  uint64_t lowest_bytes = (uint64_t{0} - static_cast<uint64_t>(lowest)) * (element_bits / 8);  // no overflow: < span
  if (__builtin_add_overflow(first, tensor.byte_offset, &first) || (span > 0 && first < lowest_bytes)) {
    return "has a byte_offset that overflows";
  }
  uintptr_t end = 0;
  if (span > 0 && __builtin_add_overflow(first - lowest_bytes, span, &end)) return "ends past the address space";
  *start = span > 0 ? first - lowest_bytes : 0;
  *bytes = span;
  return "";
}

[[noreturn]] void ThrowInvalid(Napi::Env env, const std::string& message) {
  throw Napi::Error(env, js::MakeError(env, RMMJS_ERR_INVALID_ARGUMENT, message, 0, "ERR_INVALID_ARG_VALUE"));
}

Napi::Value Int64Values(Napi::Env env, const int64_t* values, int32_t count) {
  Napi::Array array = Napi::Array::New(env, count);
  for (int32_t i = 0; i < count; ++i) array.Set(i, Napi::Number::New(env, static_cast<double>(values[i])));
  return array;
}

}  // namespace

// fromDLPack(capsule) -> a memory handle (adoptMemory makes the DeviceBuffer).
Napi::Value FromDLPack(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  dlpack::ManagedTensorVersioned* tensor = TakeTensor(env, CapsuleArg(env, info[0], "capsule"), "capsule");
  uintptr_t start = 0;
  size_t bytes = 0;
  int device = 0;
  std::string problem = Check(*tensor, &start, &bytes, &device);
  if (!problem.empty()) {
    DeleteTensor(tensor);  // back to its producer
    ThrowInvalid(env, "The argument \"capsule\" " + problem);
  }
  uint32_t flags = ExportedMemoryFlags(*tensor) & RMMJS_MEMORY_THREAD_BOUND;  // a view of rmmjs memory is that memory
  auto* imported = new ImportedTensor{
      {sizeof(rmmjs_memory), reinterpret_cast<void*>(start), bytes, device, flags, ImportedTensor::Release}, tensor};
  return js::WrapMemory(env, &imported->memory);
}

// capsuleInfo(capsule): what it holds, without consuming it; null once it was consumed.
Napi::Value CapsuleInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  rmmjs_dlpack_capsule* capsule = CapsuleArg(env, info[0], "capsule");
  if (capsule->tensor == nullptr) return env.Null();
  const auto& managed = *reinterpret_cast<const dlpack::ManagedTensorVersioned*>(capsule->tensor);
  Napi::Object out = Napi::Object::New(env);
  out.Set("major", managed.version.major);
  out.Set("minor", managed.version.minor);
  if (managed.version.major != dlpack::kMajorVersion) return out;  // the rest may have another layout
  const dlpack::Tensor& tensor = managed.dl_tensor;
  out.Set("flags", static_cast<double>(managed.flags));
  out.Set("deviceType", tensor.device.device_type);
  out.Set("deviceId", tensor.device.device_id);
  out.Set("code", tensor.dtype.code);
  out.Set("bits", tensor.dtype.bits);
  out.Set("lanes", tensor.dtype.lanes);
  int32_t ndim = tensor.shape != nullptr ? std::max(tensor.ndim, 0) : 0;
  out.Set("shape", Int64Values(env, tensor.shape, ndim));
  out.Set("strides", tensor.strides != nullptr ? Int64Values(env, tensor.strides, ndim) : env.Null());
  out.Set("byteOffset", static_cast<double>(tensor.byte_offset));
  out.Set("data", Napi::BigInt::New(env, static_cast<uint64_t>(reinterpret_cast<uintptr_t>(tensor.data))));
  return out;
}

// releaseCapsule(capsule): hands an unconsumed tensor back to its producer now; false when it was
// consumed.
Napi::Value ReleaseCapsule(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  rmmjs_dlpack_capsule* capsule = CapsuleArg(env, info[0], "capsule");
  if (capsule->tensor == nullptr) return Napi::Boolean::New(env, false);
  DeleteTensor(TakeTensor(env, capsule, "capsule"));
  return Napi::Boolean::New(env, true);
}

Napi::Value IsCapsule(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), CapsuleOf(info.Env(), info[0]) != nullptr);
}

}  // namespace rmmjs::interop
