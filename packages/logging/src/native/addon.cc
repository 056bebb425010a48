// @rmmjs/logging's addon: create(upstream, path, autoFlush), flush and the file name.
#include "rmmjs/addon.hpp"
#include "logging_resource_adaptor.h"

namespace {

using rmmjs::CsvLog;
using rmmjs::LoggingResourceAdaptor;
namespace js = rmmjs::js;

// create(upstream, logFileName, autoFlush): the file is opened (truncated) before the adaptor exists.
Napi::Value Create(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  rmmjs_resource* upstream = js::ResourceArg(env, info[0], "upstream");
  if (!info[1].IsString()) js::ThrowTypeError(env, "options.logFileName must be a string");
  std::shared_ptr<CsvLog> log;
  js::Check(env, CsvLog::Open(info[1].As<Napi::String>().Utf8Value(), info[2].ToBoolean(), &log));
  return js::NewAdaptor<LoggingResourceAdaptor>(env, upstream, 0, std::move(log));
}

Napi::Value Flush(const Napi::CallbackInfo& info) {
  js::Check(info.Env(), js::Self<LoggingResourceAdaptor>(info).Flush());
  return info.Env().Undefined();
}

Napi::Value FileName(const Napi::CallbackInfo& info) {
  return Napi::String::New(info.Env(), js::Self<LoggingResourceAdaptor>(info).file_name());
}

}  // namespace

RMMJS_ADDON(rmmjs_logging, {"create", Create}, {"flush", Flush}, {"fileName", FileName})
