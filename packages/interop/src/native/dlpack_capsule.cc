#include "dlpack_capsule.h"

#include <string>
#include <utility>

#include "rmmjs/napi.hpp"

namespace rmmjs::interop {
namespace {

constexpr napi_type_tag kCapsuleTag{RMMJS_TAG_DLPACK_LOWER, RMMJS_TAG_DLPACK_UPPER};

dlpack::ManagedTensorVersioned* TensorOf(rmmjs_dlpack_capsule* capsule) {
  return reinterpret_cast<dlpack::ManagedTensorVersioned*>(capsule->tensor);
}

}  // namespace

void DeleteTensor(dlpack::ManagedTensorVersioned* tensor) {
  if (tensor != nullptr && tensor->deleter != nullptr) tensor->deleter(tensor);
}

Napi::Value WrapCapsule(Napi::Env env, dlpack::ManagedTensorVersioned* tensor) {
  auto* capsule =
      new rmmjs_dlpack_capsule{RMMJS_DLPACK_CAPSULE_MAGIC, reinterpret_cast<struct DLManagedTensorVersioned*>(tensor)};
  napi_value external = nullptr;
  if (napi_create_external(
          env, capsule,
          [](napi_env, void* data, void*) {
            auto* capsule = static_cast<rmmjs_dlpack_capsule*>(data);
            DeleteTensor(TensorOf(capsule));  // nobody consumed it
            capsule->magic = 0;
            delete capsule;
          },
          nullptr, &external) != napi_ok) {
    DeleteTensor(tensor);
    delete capsule;
    throw Napi::Error::New(env, "cannot create a DLPack capsule");
  }
  napi_type_tag_object(env, external, &kCapsuleTag);
  return Napi::Value(env, external);
}

rmmjs_dlpack_capsule* CapsuleOf(Napi::Env env, napi_value value) {
  void* data = nullptr;
  if (!js::HasTag(env, value, kCapsuleTag) || napi_get_value_external(env, value, &data) != napi_ok ||
      data == nullptr || static_cast<rmmjs_dlpack_capsule*>(data)->magic != RMMJS_DLPACK_CAPSULE_MAGIC) {
    return nullptr;
  }
  return static_cast<rmmjs_dlpack_capsule*>(data);
}

rmmjs_dlpack_capsule* CapsuleArg(Napi::Env env, napi_value value, const char* what) {
  rmmjs_dlpack_capsule* capsule = CapsuleOf(env, value);
  if (capsule == nullptr)
    js::ThrowTypeError(env, std::string("The \"") + what + "\" argument must be a DLPack capsule");
  return capsule;
}

dlpack::ManagedTensorVersioned* TakeTensor(Napi::Env env, rmmjs_dlpack_capsule* capsule, const char* what) {
  auto* tensor = reinterpret_cast<dlpack::ManagedTensorVersioned*>(std::exchange(capsule->tensor, nullptr));
  if (tensor == nullptr) {
    throw Napi::Error(env, js::MakeError(env, RMMJS_ERR_INVALID_ARGUMENT,
                                         std::string("The argument \"") + what +
                                             "\" was consumed already: a DLPack capsule can be consumed once",
                                         0, "ERR_INVALID_ARG_VALUE"));
  }
  return tensor;
}

}  // namespace rmmjs::interop
