// pointerTableProbes(pointers: BigUint64Array) -> { mean, longest, ownLines }: the slots a lookup
// reads in core's ShardedPointerTable holding exactly those pointers, averaged over them and at most
// (the tests check the hash spreads allocator-shaped keys, aligned and strided, over the slots), and
// whether each shard's slots take whole cache lines of their own.
#include <algorithm>
#include <cstdint>

#include "methods.h"
#include "rmmjs/addon.hpp"
#include "rmmjs/pointer_table.hpp"

namespace rmmjs::test_addon {

Napi::Value PointerTableProbes(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsTypedArray() || info[0].As<Napi::TypedArray>().TypedArrayType() != napi_biguint64_array) {
    js::ThrowTypeError(env, "pointers must be a BigUint64Array");
  }
  Napi::BigUint64Array pointers = info[0].As<Napi::BigUint64Array>();
  auto table = std::make_unique<ShardedPointerTable<int>>();
  for (size_t i = 0; i < pointers.ElementLength(); i++) {
    if (!table->Insert(reinterpret_cast<const void*>(pointers[i]), 0)) {
      js::ThrowTypeError(env, "pointers must be distinct and not 0");
    }
  }
  double total = 0;
  size_t longest = 0;
  for (size_t i = 0; i < pointers.ElementLength(); i++) {
    size_t length = table->ProbeLength(reinterpret_cast<const void*>(pointers[i]));
    total += static_cast<double>(length);
    longest = std::max(longest, length);
  }
  Napi::Object result = Napi::Object::New(env);
  result.Set("mean", Napi::Number::New(env, pointers.ElementLength() == 0 ? 0 : total / pointers.ElementLength()));
  result.Set("longest", Napi::Number::New(env, static_cast<double>(longest)));
  result.Set("ownLines", Napi::Boolean::New(env, table->SlotsOnOwnLines()));
  return result;
}

}  // namespace rmmjs::test_addon
