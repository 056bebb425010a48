// toDLPack: a capsule whose tensor holds a DeviceBuffer's memory (a share from holdMemory), so the
// memory, and the resource it came from, stay until the consumer calls the deleter: exactly once,
// from any thread, without JavaScript.
#include <utility>
#include <vector>

#include "dlpack_capsule.h"
#include "driver_support.h"
#include "interop.h"
#include "rmmjs/napi.hpp"
#include "rmmjs/resource.hpp"

namespace rmmjs::interop {
namespace {

// The tensor, its shape and strides, and the memory it holds, in one allocation: the deleter
// frees it all.
struct ExportedTensor {
  dlpack::ManagedTensorVersioned tensor{};
  rmmjs_memory* memory = nullptr;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;

  static void Delete(dlpack::ManagedTensorVersioned* self) {
    auto* exported = static_cast<ExportedTensor*>(self->manager_ctx);
    exported->memory->release(exported->memory);
    delete exported;
  }
};

// The DLPack device of rmmjs memory: kDLCPU in host mode and for memory the driver does not know;
// else what the driver says (device memory, managed memory, pinned host memory).
rmmjs_status DeviceOf(const rmmjs_memory& memory, dlpack::Device* out) {
  *out = {dlpack::kDLCPU, 0};
  const rmmjs_core_api* core = CoreApi();
  const rmmjs_driver_api* driver = core->driver();
  if (driver == nullptr) return RMMJS_OK;
  if (memory.ptr == nullptr) {  // an empty buffer: no memory to ask about
    *out = {dlpack::kDLCUDA, memory.device};
    return RMMJS_OK;
  }
  DeviceContext context(memory.device);
  RMMJS_TRY(context.status());
  PointerInfo info;
  RMMJS_TRY(QueryPointer(driver, memory.ptr, &info));
  switch (info.kind) {
    case PointerInfo::kDevice:
      *out = {dlpack::kDLCUDA, info.device};
      break;
    case PointerInfo::kManaged:  // DLPack: device_id 0 for managed and pinned memory
      *out = {dlpack::kDLCUDAManaged, 0};
      break;
    case PointerInfo::kHost:
      *out = {dlpack::kDLCUDAHost, 0};
      break;
    case PointerInfo::kUnknown:
      break;
  }
  return RMMJS_OK;
}

std::vector<int64_t> Int64Array(const Napi::Value& value) {
  Napi::Array array = value.As<Napi::Array>();
  std::vector<int64_t> out(array.Length());
  for (uint32_t i = 0; i < array.Length(); ++i) out[i] = array.Get(i).As<Napi::Number>().Int64Value();
  return out;
}

}  // namespace

uint32_t ExportedMemoryFlags(const dlpack::ManagedTensorVersioned& tensor) {
  if (tensor.deleter != ExportedTensor::Delete) return 0;
  return static_cast<const ExportedTensor*>(tensor.manager_ctx)->memory->flags;
}

// toDLPack(memory, code, bits, lanes, shape, strides | null, byteOffset): JavaScript checked that
// the tensor lies within the memory.
Napi::Value ToDLPack(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::vector<int64_t> shape = Int64Array(info[4]);
  std::vector<int64_t> strides = info[5].IsNull() ? std::vector<int64_t>() : Int64Array(info[5]);
  auto dtype = dlpack::DataType{static_cast<uint8_t>(info[1].As<Napi::Number>().Uint32Value()),
                                static_cast<uint8_t>(info[2].As<Napi::Number>().Uint32Value()),
                                static_cast<uint16_t>(info[3].As<Napi::Number>().Uint32Value())};
  auto byte_offset = static_cast<uint64_t>(info[6].As<Napi::Number>().Int64Value());
  rmmjs_memory* memory = js::TakeMemory(env, info[0], "memory");  // from here the deleter releases it
  auto* exported = new ExportedTensor();
  exported->memory = memory;
  exported->shape = std::move(shape);
  exported->strides = std::move(strides);
  dlpack::ManagedTensorVersioned& tensor = exported->tensor;
  tensor.version = {dlpack::kMajorVersion, dlpack::kMinorVersion};
  tensor.manager_ctx = exported;
  tensor.deleter = ExportedTensor::Delete;
  tensor.flags = 0;
  rmmjs_status status = DeviceOf(*exported->memory, &tensor.dl_tensor.device);
  if (status != RMMJS_OK) {
    ExportedTensor::Delete(&tensor);
    js::ThrowStatus(env, status);
  }
  tensor.dl_tensor.data = exported->memory->ptr;
  tensor.dl_tensor.ndim = static_cast<int32_t>(exported->shape.size());
  tensor.dl_tensor.dtype = dtype;
  tensor.dl_tensor.shape = exported->shape.empty() ? nullptr : exported->shape.data();
  tensor.dl_tensor.strides = exported->strides.empty() ? nullptr : exported->strides.data();
  tensor.dl_tensor.byte_offset = byte_offset;
  return WrapCapsule(env, &tensor, exported->memory->bytes);
}

}  // namespace rmmjs::interop
