// Each Register* adds one group of native functions to core's exports.
#pragma once

#include <napi.h>

namespace rmmjs {
namespace bind {

void RegisterCuda(Napi::Env env, Napi::Object exports);
void RegisterResources(Napi::Env env, Napi::Object exports);
void RegisterStreams(Napi::Env env, Napi::Object exports);
void RegisterBuffers(Napi::Env env, Napi::Object exports);
void RegisterLentMemory(Napi::Env env, Napi::Object exports);
void RegisterLogger(Napi::Env env, Napi::Object exports);
void RegisterThreads(Napi::Env env, Napi::Object exports);

}  // namespace bind
}  // namespace rmmjs
