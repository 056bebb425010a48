// @rmmjs/statistics's addon: create(upstream) and the counter stack. Counters travel to
// JavaScript as [currentBytes, currentCount, peakBytes, peakCount, totalBytes, totalCount].
#include "rmmjs/addon.hpp"
#include "statistics_resource_adaptor.h"

namespace {

using rmmjs::StatisticsResourceAdaptor;
namespace js = rmmjs::js;

Napi::Value CountersValue(Napi::Env env, const StatisticsResourceAdaptor::Counters& counters) {
  const int64_t values[] = {counters.bytes.value,      counters.allocations.value, counters.bytes.peak,
                            counters.allocations.peak, counters.bytes.total,       counters.allocations.total};
  Napi::Array array = Napi::Array::New(env, 6);
  for (uint32_t i = 0; i < 6; i++) array.Set(i, Napi::Number::New(env, static_cast<double>(values[i])));
  return array;
}

Napi::Value Create(const Napi::CallbackInfo& info) { return js::CreateAdaptor<StatisticsResourceAdaptor>(info, 0); }

Napi::Value Counters(const Napi::CallbackInfo& info) {
  return CountersValue(info.Env(), js::Self<StatisticsResourceAdaptor>(info).Top());
}

Napi::Value Push(const Napi::CallbackInfo& info) {
  StatisticsResourceAdaptor::Counters top;
  js::Check(info.Env(), js::Self<StatisticsResourceAdaptor>(info).Push(&top));
  return CountersValue(info.Env(), top);
}

Napi::Value Pop(const Napi::CallbackInfo& info) {
  StatisticsResourceAdaptor::Counters popped;
  js::Check(info.Env(), js::Self<StatisticsResourceAdaptor>(info).Pop(&popped));
  return CountersValue(info.Env(), popped);
}

// countAllocation(mr, bytes) and countFree(mr, bytes): see StatisticsResourceAdaptor::CountAllocation.
Napi::Value CountAllocation(const Napi::CallbackInfo& info) {
  js::Self<StatisticsResourceAdaptor>(info).CountAllocation(js::SizeArg(info[1]));
  return info.Env().Undefined();
}

Napi::Value CountFree(const Napi::CallbackInfo& info) {
  js::Self<StatisticsResourceAdaptor>(info).CountFree(js::SizeArg(info[1]));
  return info.Env().Undefined();
}

}  // namespace

RMMJS_ADDON(rmmjs_statistics, {"create", Create}, {"counters", Counters}, {"push", Push}, {"pop", Pop},
            {"countAllocation", CountAllocation}, {"countFree", CountFree})
