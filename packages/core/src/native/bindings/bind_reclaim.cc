// What src/reclaim.ts needs of the tracked owners (tracked_owners.h), and weak references that do
// not keep their targets alive to the end of the current job as WeakRef does.
#include "bindings/binding_util.h"
#include "bindings/bindings.h"
#include "bindings/tracked_owners.h"

namespace rmmjs {
namespace bind {
namespace {

// reclaimCollected(): gives back the memory of the owners whose objects the collector found
// unreachable; the bytes given back.
Napi::Value ReclaimCollectedJs(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(Reclaim(info.Env())));
}

// heldBytes(sinceCollection): the bytes this thread's owners hold (only those made since the last
// markCollected()).
Napi::Value HeldBytesJs(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(HeldBytes(info[0].ToBoolean())));
}

// markCollected(): a full collection and reclaimCollected() just ran.
Napi::Value MarkCollectedJs(const Napi::CallbackInfo& info) {
  MarkCollected();
  return info.Env().Undefined();
}

constexpr napi_type_tag kWeakTag{0x726d6d6a73576561ULL, 0x6b52656676303031ULL};  // "rmmjsWeakRefv001"

// weakReference(target): an external holding a weak Node-API reference to target. A WeakRef, or
// its deref(), keeps its target alive until the current job ends; a Node-API reference does not.
Napi::Value WeakReferenceJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsObject()) js::ThrowTypeError(env, "target must be an object");
  napi_ref ref = nullptr;
  if (napi_create_reference(env, info[0], 0, &ref) != napi_ok) js::ThrowTypeError(env, "target must be an object");
  napi_value external = nullptr;
  if (napi_create_external(
          env, ref, [](napi_env env, void* data, void*) { napi_delete_reference(env, static_cast<napi_ref>(data)); },
          nullptr, &external) != napi_ok) {
    napi_delete_reference(env, ref);
    throw Napi::Error::New(env, "cannot create a weak reference");
  }
  napi_type_tag_object(env, external, &kWeakTag);
  return Napi::Value(env, external);
}

// weakTarget(reference): the target, or undefined once it was collected.
Napi::Value WeakTargetJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  void* data = nullptr;
  if (!js::HasTag(env, info[0], kWeakTag) || napi_get_value_external(env, info[0], &data) != napi_ok) {
    js::ThrowTypeError(env, "reference must be a weak reference");
  }
  napi_value target = nullptr;
  napi_get_reference_value(env, static_cast<napi_ref>(data), &target);
  return target == nullptr ? env.Undefined() : Napi::Value(env, target);
}

const js::Method kMethods[] = {
    {"reclaimCollected", ReclaimCollectedJs}, {"heldBytes", HeldBytesJs},   {"markCollected", MarkCollectedJs},
    {"weakReference", WeakReferenceJs},       {"weakTarget", WeakTargetJs},
};

}  // namespace

const MethodTable kReclaimMethods = TableOf(kMethods);

}  // namespace bind
}  // namespace rmmjs
