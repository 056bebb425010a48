// spareListCheck() -> { steps, made, live, kept, takenBack }: core's SpareList of capacity 4 through
// one fixed sequence of takes and recycles, then its destruction; after each step, the records
// made so far, those alive, and those the list keeps. takenBack names the records the second round
// of takes returned (r0..r5: the order of the first round).
#include <cstddef>
#include <string>
#include <vector>

#include "methods.h"
#include "rmmjs/spare_list.hpp"

namespace rmmjs::test_addon {
namespace {

struct Counted {
  static inline std::size_t made = 0;
  static inline std::size_t live = 0;
  Counted() {
    made++;
    live++;
  }
  ~Counted() { live--; }
};

}  // namespace

Napi::Value SpareListCheck(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Counted::made = Counted::live = 0;
  Napi::Array steps = Napi::Array::New(env);
  Napi::Array made = Napi::Array::New(env);
  Napi::Array live = Napi::Array::New(env);
  Napi::Array kept = Napi::Array::New(env);
  auto note = [&](const char* step, std::size_t in_list) {
    const uint32_t at = steps.Length();
    steps.Set(at, step);
    made.Set(at, static_cast<double>(Counted::made));
    live.Set(at, static_cast<double>(Counted::live));
    kept.Set(at, static_cast<double>(in_list));
  };

  std::vector<Counted*> first(6);
  std::string taken_back;
  std::vector<Counted*> held;
  {
    SpareList<Counted, 4> spares;
    for (Counted*& record : first) record = spares.Take();
    note("take 6 from none", spares.size());
    for (Counted* record : first) spares.Recycle(record);
    note("recycle the 6", spares.size());
    for (int i = 0; i < 4; i++) {
      Counted* record = spares.Take();
      for (std::size_t j = 0; j < first.size(); j++) {
        if (record == first[j]) taken_back += (taken_back.empty() ? "r" : ",r") + std::to_string(j);
      }
      held.push_back(record);
    }
    note("take 4", spares.size());
    held.push_back(spares.Take());
    note("take 1 more", spares.size());
    spares.Recycle(held.back());
    held.pop_back();
    spares.Recycle(held.back());
    held.pop_back();
    note("recycle 2", spares.size());
  }
  note("destroy the list", 0);
  for (Counted* record : held) delete record;
  note("delete the 3 held", 0);

  Napi::Object result = Napi::Object::New(env);
  result.Set("steps", steps);
  result.Set("made", made);
  result.Set("live", live);
  result.Set("kept", kept);
  result.Set("takenBack", taken_back);
  return result;
}

}  // namespace rmmjs::test_addon
