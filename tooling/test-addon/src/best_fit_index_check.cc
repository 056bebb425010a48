// bestFitIndexCheck({ seed, steps, sizes }) -> { operations, mismatches, first, largestClassRun }:
// core's BestFitIndex against a std::set of (size, start) under a seeded random mix of Insert,
// Remove, Rekey, MoveFrom between two indexes, BestFit and first(); `sizes` picks the keys:
// "steps" (256-byte multiples below 256 KiB), "any" (any size up to 4 MiB: the classes that are
// not exact), "equal" (a few sizes, many blocks each: deep heaps), "edges" (class edges, powers of
// two and their neighbours, up to SIZE_MAX). `first` describes the first mismatch.
#include <cstdint>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "methods.h"
#include "rmmjs/addon.hpp"
#include "rmmjs/best_fit_index.hpp"

namespace rmmjs::test_addon {
namespace {

struct Record;
using Index = BestFitIndex<Record, std::uintptr_t>;

struct Record {
  std::size_t size = 0;
  std::uintptr_t start = 0;
  int in = -1;  // which index holds it (0 or 1), or -1 while out
  Index::Entry entry{this};
};

using Key = std::pair<std::size_t, std::uintptr_t>;

class Sizes {
 public:
  Sizes(const std::string& kind, std::mt19937_64& random) : kind_(kind), random_(random) {
    for (unsigned bit = 1; bit < 64; bit++) {
      const std::size_t power = std::size_t{1} << bit;
      for (std::size_t size : {power - 1, power, power + 1, power + 256, power - 256}) edges_.push_back(size);
    }
    edges_.push_back(SIZE_MAX);
    edges_.push_back(SIZE_MAX - 255);
  }

  std::size_t Next() {
    if (kind_ == "steps") return 256 * Uniform(1, 1023);
    if (kind_ == "any") return Uniform(1, std::size_t{4} << 20);
    if (kind_ == "equal") return std::size_t{1} << (8 + 6 * Uniform(0, 2));  // 256 B, 16 KiB, 1 MiB
    return edges_[Uniform(0, edges_.size() - 1)];
  }

  std::size_t Uniform(std::size_t low, std::size_t high) {
    return std::uniform_int_distribution<std::size_t>(low, high)(random_);
  }

 private:
  std::string kind_;
  std::mt19937_64& random_;
  std::vector<std::size_t> edges_;
};

}  // namespace

Napi::Value BestFitIndexCheck(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object options = info[0].As<Napi::Object>();
  std::mt19937_64 random(options.Get("seed").As<Napi::Number>().Int64Value());
  const std::int64_t steps = options.Get("steps").As<Napi::Number>().Int64Value();
  const std::string kind = options.Get("sizes").As<Napi::String>().Utf8Value();
  if (kind != "steps" && kind != "any" && kind != "equal" && kind != "edges") {
    js::ThrowTypeError(env, "sizes must be one of steps, any, equal, edges");
  }
  Sizes sizes(kind, random);

  std::vector<std::unique_ptr<Record>> records;
  Index indexes[2];
  std::set<Key> expected[2];
  std::int64_t operations = 0;
  std::int64_t mismatches = 0;
  std::string first;
  std::uintptr_t next_start = 0x1000;
  auto mismatch = [&](const std::string& what) {
    if (mismatches++ == 0) first = what + " at operation " + std::to_string(operations);
  };
  auto key_of = [](const Record& record) { return Key{record.size, record.start}; };
  auto insert = [&](Record& record, int into) {
    indexes[into].Insert(&record.entry, record.size, record.start);
    expected[into].insert(key_of(record));
    record.in = into;
  };
  auto remove = [&](Record& record) {
    expected[record.in].erase(key_of(record));
    indexes[record.in].Remove(&record.entry);
    record.in = -1;
  };
  auto any_record = [&]() -> Record& { return *records[sizes.Uniform(0, records.size() - 1)]; };

  for (std::int64_t step = 0; step < steps; step++, operations++) {
    const std::size_t choice = sizes.Uniform(0, 99);
    if (records.size() < 8 || choice < 30) {
      auto record = std::make_unique<Record>();
      record->size = sizes.Next();
      // Equal keys are not indexed twice (the owners never do): each record its own start; some
      // share a size with others.
      record->start = next_start;
      next_start += 256 * sizes.Uniform(1, 4);
      insert(*record, static_cast<int>(sizes.Uniform(0, 1)));
      records.push_back(std::move(record));
    } else if (choice < 50) {
      Record& record = any_record();
      if (record.in >= 0) {
        remove(record);
      } else {
        insert(record, static_cast<int>(sizes.Uniform(0, 1)));
      }
    } else if (choice < 62) {
      Record& record = any_record();
      if (record.in < 0) continue;
      expected[record.in].erase(key_of(record));
      record.size = sizes.Next();
      record.start = next_start;
      next_start += 256;
      indexes[record.in].Rekey(&record.entry, record.size, record.start);
      expected[record.in].insert(key_of(record));
    } else if (choice < 70) {
      Record& record = any_record();
      if (record.in < 0) continue;
      const int to = 1 - record.in;
      expected[record.in].erase(key_of(record));
      indexes[to].MoveFrom(indexes[record.in], &record.entry);
      expected[to].insert(key_of(record));
      record.in = to;
    } else {
      const int which = static_cast<int>(sizes.Uniform(0, 1));
      const std::size_t wanted = choice < 95 ? sizes.Next() : sizes.Uniform(0, 300);
      const Index::Entry* fit = indexes[which].BestFit(wanted);
      auto want = expected[which].lower_bound(Key{wanted, 0});
      if ((fit == nullptr) != (want == expected[which].end())) {
        mismatch("BestFit(" + std::to_string(wanted) + ") found " + (fit == nullptr ? "nothing" : "a block"));
      } else if (fit != nullptr && (Key{fit->size, fit->start} != *want || key_of(*fit->record) != *want)) {
        mismatch("BestFit(" + std::to_string(wanted) + ") = " + std::to_string(fit->size) + " instead of " +
                 std::to_string(want->first));
      }
      Record* least = indexes[which].first();
      if ((least == nullptr) != expected[which].empty() ||
          (least != nullptr && key_of(*least) != *expected[which].begin())) {
        mismatch("first()");
      }
      for (int i = 0; i < 2; i++) {
        if (indexes[i].empty() != expected[i].empty()) mismatch("empty()");
      }
    }
  }
  // Half the records are taken out at the end, half left in when the indexes go.
  for (auto& record : records) {
    if (record->in >= 0 && sizes.Uniform(0, 1) == 0) remove(*record);
  }

  Napi::Object result = Napi::Object::New(env);
  result.Set("operations", Napi::Number::New(env, static_cast<double>(operations)));
  result.Set("mismatches", Napi::Number::New(env, static_cast<double>(mismatches)));
  result.Set("first", Napi::String::New(env, first));
  result.Set("records", Napi::Number::New(env, static_cast<double>(records.size())));
  return result;
}

}  // namespace rmmjs::test_addon
