// The DLPack 1.1 declarations @rmmjs/interop uses (https://github.com/dmlc/dlpack), under names of
// its own so that nothing needs DLPack's header to build. The build checks sizes, offsets and
// values against DLPack's own dlpack.h where it is found (dlpack_abi_check.cc).
#pragma once

#include <cstdint>

namespace rmmjs::dlpack {

constexpr uint32_t kMajorVersion = 1;
constexpr uint32_t kMinorVersion = 1;

// DLDeviceType: the ones rmmjs memory can be.
constexpr int32_t kDLCPU = 1;
constexpr int32_t kDLCUDA = 2;
constexpr int32_t kDLCUDAHost = 3;
constexpr int32_t kDLCUDAManaged = 13;

// DLDataTypeCode
constexpr uint8_t kDLInt = 0;
constexpr uint8_t kDLUInt = 1;
constexpr uint8_t kDLFloat = 2;
constexpr uint8_t kDLBfloat = 4;
constexpr uint8_t kDLComplex = 5;
constexpr uint8_t kDLBool = 6;

// DLManagedTensorVersioned::flags
constexpr uint64_t kFlagReadOnly = uint64_t{1} << 0;

struct Version {
  uint32_t major;
  uint32_t minor;
};

struct Device {
  int32_t device_type;
  int32_t device_id;
};

struct DataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};

struct Tensor {
  void* data;
  Device device;
  int32_t ndim;
  DataType dtype;
  int64_t* shape;
  int64_t* strides;  // in elements; NULL: compact, row-major
  uint64_t byte_offset;
};

struct ManagedTensorVersioned {
  Version version;
  void* manager_ctx;
  void (*deleter)(ManagedTensorVersioned* self);
  uint64_t flags;
  Tensor dl_tensor;
};

}  // namespace rmmjs::dlpack
