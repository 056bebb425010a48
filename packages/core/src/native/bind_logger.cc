// The debug logger's controls (used by @rmmjs/logging).
#include "binding_util.h"
#include "bindings.h"
#include "logger.h"

namespace rmmjs {
namespace bind {
namespace {

rmmjs_log_level LevelArg(Napi::Env env, const Napi::Value& value) {
  int level = IntArg(env, value, "level");
  if (level < RMMJS_LOG_TRACE || level > RMMJS_LOG_OFF) js::ThrowTypeError(env, "level must be a LevelEnum value");
  return static_cast<rmmjs_log_level>(level);
}

}  // namespace

void RegisterLogger(Napi::Env env, Napi::Object exports) {
  exports.Set("setLogLevel", Napi::Function::New(env, [](const Napi::CallbackInfo& info) {
                SetLogLevel(LevelArg(info.Env(), info[0]));
              }));
  exports.Set("getLogLevel", Napi::Function::New(env, [](const Napi::CallbackInfo& info) {
                return Napi::Number::New(info.Env(), GetLogLevel());
              }));
  exports.Set("setFlushLevel", Napi::Function::New(env, [](const Napi::CallbackInfo& info) {
                SetFlushLevel(LevelArg(info.Env(), info[0]));
              }));
  exports.Set("getFlushLevel", Napi::Function::New(env, [](const Napi::CallbackInfo& info) {
                return Napi::Number::New(info.Env(), GetFlushLevel());
              }));
  exports.Set("shouldLog", Napi::Function::New(env, [](const Napi::CallbackInfo& info) {
                return Napi::Boolean::New(info.Env(), ShouldLog(LevelArg(info.Env(), info[0])));
              }));
  exports.Set("log", Napi::Function::New(env, [](const Napi::CallbackInfo& info) {
                Log(LevelArg(info.Env(), info[0]), info[1].ToString().Utf8Value());
              }));
  exports.Set("flushLog", Napi::Function::New(env, [](const Napi::CallbackInfo&) { FlushLog(); }));
}

}  // namespace bind
}  // namespace rmmjs
