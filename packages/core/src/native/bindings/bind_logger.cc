// The debug logger's controls (used by @rmmjs/logging).
#include "bindings/binding_util.h"
#include "bindings/bindings.h"
#include "runtime/logger.h"

namespace rmmjs {
namespace bind {
namespace {

rmmjs_log_level LevelArg(Napi::Env env, const Napi::Value& value) {
  int level = IntArg(env, value, "level");
  if (level < RMMJS_LOG_TRACE || level > RMMJS_LOG_OFF) js::ThrowTypeError(env, "level must be a LevelEnum value");
  return static_cast<rmmjs_log_level>(level);
}

Napi::Value SetLogLevelJs(const Napi::CallbackInfo& info) {
  SetLogLevel(LevelArg(info.Env(), info[0]));
  return info.Env().Undefined();
}

Napi::Value GetLogLevelJs(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), GetLogLevel()); }

Napi::Value SetFlushLevelJs(const Napi::CallbackInfo& info) {
  SetFlushLevel(LevelArg(info.Env(), info[0]));
  return info.Env().Undefined();
}

Napi::Value GetFlushLevelJs(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), GetFlushLevel()); }

Napi::Value ShouldLogJs(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), ShouldLog(LevelArg(info.Env(), info[0])));
}

Napi::Value LogJs(const Napi::CallbackInfo& info) {
  Log(LevelArg(info.Env(), info[0]), info[1].ToString().Utf8Value());
  return info.Env().Undefined();
}

Napi::Value FlushLogJs(const Napi::CallbackInfo& info) {
  FlushLog();
  return info.Env().Undefined();
}

const js::Method kMethods[] = {
    {"setLogLevel", SetLogLevelJs},     {"getLogLevel", GetLogLevelJs}, {"setFlushLevel", SetFlushLevelJs},
    {"getFlushLevel", GetFlushLevelJs}, {"shouldLog", ShouldLogJs},     {"log", LogJs},
    {"flushLog", FlushLogJs},
};

}  // namespace

const MethodTable kLoggerMethods = TableOf(kMethods);

}  // namespace bind
}  // namespace rmmjs
