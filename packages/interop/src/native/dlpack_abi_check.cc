// Build-time check of src/native/dlpack.h against DLPack's own dlpack.h (v1.1, test/addon/dlpack):
// sizes, offsets and values. CMake compiles this file only where that header is found; nothing
// else in the build includes it.
#include <dlpack/dlpack.h>

#include <cstddef>

#include "dlpack.h"

namespace dl = rmmjs::dlpack;

static_assert(DLPACK_MAJOR_VERSION == 1 && DLPACK_MINOR_VERSION == 1, "the check is against DLPack 1.1");
static_assert(dl::kMajorVersion == DLPACK_MAJOR_VERSION && dl::kMinorVersion == DLPACK_MINOR_VERSION);

static_assert(dl::kDLCPU == kDLCPU && dl::kDLCUDA == kDLCUDA && dl::kDLCUDAHost == kDLCUDAHost &&
              dl::kDLCUDAManaged == kDLCUDAManaged);
static_assert(dl::kDLInt == kDLInt && dl::kDLUInt == kDLUInt && dl::kDLFloat == kDLFloat &&
              dl::kDLBfloat == kDLBfloat && dl::kDLComplex == kDLComplex && dl::kDLBool == kDLBool);
static_assert(dl::kFlagReadOnly == DLPACK_FLAG_BITMASK_READ_ONLY);

#define RMMJS_SAME_MEMBER(ours, theirs, member) \
  static_assert(offsetof(ours, member) == offsetof(theirs, member) && sizeof(ours::member) == sizeof(theirs::member))

static_assert(sizeof(dl::Version) == sizeof(DLPackVersion));
RMMJS_SAME_MEMBER(dl::Version, DLPackVersion, major);
RMMJS_SAME_MEMBER(dl::Version, DLPackVersion, minor);

static_assert(sizeof(dl::Device) == sizeof(DLDevice));
RMMJS_SAME_MEMBER(dl::Device, DLDevice, device_type);
RMMJS_SAME_MEMBER(dl::Device, DLDevice, device_id);

static_assert(sizeof(dl::DataType) == sizeof(DLDataType));
RMMJS_SAME_MEMBER(dl::DataType, DLDataType, code);
RMMJS_SAME_MEMBER(dl::DataType, DLDataType, bits);
RMMJS_SAME_MEMBER(dl::DataType, DLDataType, lanes);

static_assert(sizeof(dl::Tensor) == sizeof(DLTensor));
RMMJS_SAME_MEMBER(dl::Tensor, DLTensor, data);
RMMJS_SAME_MEMBER(dl::Tensor, DLTensor, device);
RMMJS_SAME_MEMBER(dl::Tensor, DLTensor, ndim);
RMMJS_SAME_MEMBER(dl::Tensor, DLTensor, dtype);
RMMJS_SAME_MEMBER(dl::Tensor, DLTensor, shape);
RMMJS_SAME_MEMBER(dl::Tensor, DLTensor, strides);
RMMJS_SAME_MEMBER(dl::Tensor, DLTensor, byte_offset);

static_assert(sizeof(dl::ManagedTensorVersioned) == sizeof(DLManagedTensorVersioned));
RMMJS_SAME_MEMBER(dl::ManagedTensorVersioned, DLManagedTensorVersioned, version);
RMMJS_SAME_MEMBER(dl::ManagedTensorVersioned, DLManagedTensorVersioned, manager_ctx);
RMMJS_SAME_MEMBER(dl::ManagedTensorVersioned, DLManagedTensorVersioned, deleter);
RMMJS_SAME_MEMBER(dl::ManagedTensorVersioned, DLManagedTensorVersioned, flags);
RMMJS_SAME_MEMBER(dl::ManagedTensorVersioned, DLManagedTensorVersioned, dl_tensor);
