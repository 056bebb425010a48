// fake_cuda_control.node: control(libraryPath, command) calls rmmjs_fake_control in the fake
// driver at libraryPath. dlopen of the path core loaded returns core's handle, so both see the
// same state.
#include <dlfcn.h>
#include <napi.h>

#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace {

using ControlFunction = int (*)(const char*, char*, size_t);

constexpr int kControlOutputTooSmall = 2;
constexpr size_t kMaxOutput = size_t(64) << 20;

ControlFunction Load(Napi::Env env, const std::string& path) {
  // Handles stay open: closing the last one would unload the library and lose its state.
  static std::mutex mutex;
  static std::map<std::string, ControlFunction> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  auto found = loaded.find(path);
  if (found != loaded.end()) return found->second;
  void* handle = dlopen(path.c_str(), RTLD_NOW);
  if (handle == nullptr) {
    const char* why = dlerror();
    throw Napi::Error::New(env, "cannot load " + path + ": " + (why ? why : "unknown error"));
  }
  auto control = reinterpret_cast<ControlFunction>(dlsym(handle, "rmmjs_fake_control"));
  if (control == nullptr) {
    throw Napi::Error::New(env, path + " is not the fake CUDA driver (no rmmjs_fake_control)");
  }
  loaded.emplace(path, control);
  return control;
}

Napi::Value Control(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 2 || !info[0].IsString() || !info[1].IsString()) {
    throw Napi::TypeError::New(env, "control(libraryPath: string, command: string)");
  }
  ControlFunction control = Load(env, info[0].As<Napi::String>());
  std::string command = info[1].As<Napi::String>();
  std::vector<char> out(4096);
  int result = control(command.c_str(), out.data(), out.size());
  while (result == kControlOutputTooSmall && out.size() < kMaxOutput) {
    out.resize(out.size() * 2);
    result = control(command.c_str(), out.data(), out.size());
  }
  if (result != 0) throw Napi::Error::New(env, out.data());
  return Napi::String::New(env, out.data());
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("control", Napi::Function::New(env, Control, "control"));
  return exports;
}

}  // namespace

NODE_API_MODULE(fake_cuda_control, Init)
