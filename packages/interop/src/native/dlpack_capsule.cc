#include "dlpack_capsule.h"

#include <string>
#include <unordered_map>
#include <utility>

#include "rmmjs/napi.hpp"

namespace rmmjs::interop {
namespace {

constexpr napi_type_tag kCapsuleTag{RMMJS_TAG_DLPACK_LOWER, RMMJS_TAG_DLPACK_UPPER};

dlpack::ManagedTensorVersioned* TensorOf(rmmjs_dlpack_capsule* capsule) {
  return reinterpret_cast<dlpack::ManagedTensorVersioned*>(capsule->tensor);
}

// The capsules this thread made whose tensors still hold memory: their owners in core's table and
// the bytes. (A capsule a native producer made is not here: only ours are.)
struct Tracked {
  rmmjs_tracked_owner* owner;
  size_t bytes;
};
thread_local std::unordered_map<rmmjs_dlpack_capsule*, Tracked> tl_tracked;

// The capsule no longer holds the memory (consumed, or gone): its bytes stop counting.
void Untrack(rmmjs_dlpack_capsule* capsule) {
  auto found = tl_tracked.find(capsule);
  if (found == tl_tracked.end()) return;
  CoreApi()->untrack_owner(found->second.owner);
  tl_tracked.erase(found);
}

// Core's reclaim of a capsule dropped without being consumed: the tensor goes back to its producer
// now (core untracks the owner itself); the finalizer then finds nothing to do.
size_t ReclaimCapsule(void* data) {
  auto* capsule = static_cast<rmmjs_dlpack_capsule*>(data);
  size_t bytes = 0;
  if (auto found = tl_tracked.find(capsule); found != tl_tracked.end()) {
    bytes = found->second.bytes;
    tl_tracked.erase(found);
  }
  auto* tensor = reinterpret_cast<dlpack::ManagedTensorVersioned*>(std::exchange(capsule->tensor, nullptr));
  if (tensor == nullptr) return 0;  // a native consumer took it
  DeleteTensor(tensor);
  return bytes;
}

}  // namespace

void DeleteTensor(dlpack::ManagedTensorVersioned* tensor) {
  if (tensor != nullptr && tensor->deleter != nullptr) tensor->deleter(tensor);
}

Napi::Value WrapCapsule(Napi::Env env, dlpack::ManagedTensorVersioned* tensor, size_t bytes) {
  auto* capsule =
      new rmmjs_dlpack_capsule{RMMJS_DLPACK_CAPSULE_MAGIC, reinterpret_cast<struct DLManagedTensorVersioned*>(tensor)};
  napi_value external = nullptr;
  if (napi_create_external(
          env, capsule,
          [](napi_env, void* data, void*) {
            auto* capsule = static_cast<rmmjs_dlpack_capsule*>(data);
            Untrack(capsule);
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
  rmmjs_tracked_owner* owner = nullptr;
  // Untracked, the capsule still works: its memory then waits for the finalizer.
  if (CoreApi()->track_owner(env, external, bytes, ReclaimCapsule, capsule, &owner) == RMMJS_OK) {
    tl_tracked.emplace(capsule, Tracked{owner, bytes});
  }
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
  Untrack(capsule);
  if (tensor == nullptr) {
    throw Napi::Error(env, js::MakeError(env, RMMJS_ERR_INVALID_ARGUMENT,
                                         std::string("The argument \"") + what +
                                             "\" was consumed already: a DLPack capsule can be consumed once",
                                         0, "ERR_INVALID_ARG_VALUE"));
  }
  return tensor;
}

}  // namespace rmmjs::interop
