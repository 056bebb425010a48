// rmmjs_fake_control: the test-facing side door (fault injection, budgets, attributes, stats).
#include <cstdio>
#include <cstring>
#include <sstream>
#include <vector>

#include "state.h"

using namespace fake;

namespace {

constexpr int kControlOk = 0;
constexpr int kControlError = 1;
constexpr int kControlOutputTooSmall = 2;

struct Command {
  std::vector<std::string> words;
  std::string output;  // the reply on success, the message on failure
};

bool Fail(Command& command, const std::string& message) {
  command.output = message;
  return false;
}

bool WantWords(Command& command, size_t count, const char* usage) {
  if (command.words.size() == count) return true;
  return Fail(command, std::string("usage: ") + usage);
}

bool ParseDevice(Command& command, const State& state, const std::string& text, int* device) {
  long long value = 0;
  if (!ParseInteger(text, 0, INT32_MAX, &value) || !state.ValidDevice(int(value))) {
    return Fail(command, "invalid device '" + text + "' (there are " + std::to_string(state.devices.size()) + ")");
  }
  *device = int(value);
  return true;
}

bool ParseFaultError(Command& command, const std::string& text, int* error) {
  if (ParseErrorCode(text, error)) return true;
  return Fail(command, "invalid error '" + text +
                           "' (want a non-zero CUDA error code or name, e.g. 2 or "
                           "CUDA_ERROR_OUT_OF_MEMORY)");
}

std::string StatsJson(const State& state) {
  size_t live_bytes = 0;
  for (const auto& allocation : state.allocations) live_bytes += allocation.second.size;
  std::ostringstream json;
  json << "{\"liveAllocations\":" << state.allocations.size() << ",\"liveBytes\":" << live_bytes
       << ",\"liveDeviceBytes\":[";
  for (size_t i = 0; i < state.devices.size(); ++i) {
    json << (i ? "," : "") << state.devices[i].used;
  }
  json << "],\"liveStreams\":" << state.live_streams.size() << ",\"liveEvents\":" << state.live_events.size()
       << ",\"livePools\":" << state.live_pools.size() << ",\"liveRegistrations\":" << state.registrations.size()
       << ",\"calls\":{";
  for (size_t i = 0; i < kSymbolCount; ++i) {
    json << (i ? "," : "") << '"' << kSymbolNames[i] << "\":" << state.calls[i];
  }
  json << "}}";
  return json.str();
}

bool Run(Command& command, State& state) {
  const std::vector<std::string>& words = command.words;
  const std::string& verb = words.empty() ? std::string() : words[0];
  if (verb == "reset") {
    if (!WantWords(command, 1, "reset")) return false;
    state.faults.clear();
    state.calls.fill(0);
    return true;
  }
  if (verb == "clear-faults") {
    if (!WantWords(command, 1, "clear-faults")) return false;
    state.faults.clear();
    return true;
  }
  if (verb == "fail" || verb == "fail-always") {
    bool always = verb == "fail-always";
    if (!WantWords(command, always ? 3 : 4, always ? "fail-always SYMBOL ERROR" : "fail SYMBOL NTH ERROR")) {
      return false;
    }
    Symbol symbol{};
    std::string why;
    if (!FindSymbol(words[1], &symbol, &why)) return Fail(command, why);
    long long nth = 1;
    if (!always && !ParseInteger(words[2], 1, INT64_MAX, &nth)) {
      return Fail(command, "invalid NTH '" + words[2] + "' (want an integer >= 1)");
    }
    int error = 0;
    if (!ParseFaultError(command, words.back(), &error)) return false;
    state.ArmFault(symbol, uint64_t(nth), error, always);
    return true;
  }
  if (verb == "set-attribute") {
    if (!WantWords(command, 4, "set-attribute DEVICE ATTRIBUTE VALUE")) return false;
    int device = 0;
    long long attribute = 0;
    long long value = 0;
    if (!ParseDevice(command, state, words[1], &device)) return false;
    if (!ParseInteger(words[2], 0, INT32_MAX, &attribute) || !ParseInteger(words[3], INT32_MIN, INT32_MAX, &value)) {
      return Fail(command, "invalid attribute or value (want 32-bit integers)");
    }
    state.devices[device].attributes[int(attribute)] = int(value);
    return true;
  }
  if (verb == "set-memory") {
    if (!WantWords(command, 3, "set-memory DEVICE BYTES")) return false;
    int device = 0;
    long long bytes = 0;
    if (!ParseDevice(command, state, words[1], &device)) return false;
    if (!ParseInteger(words[2], 0, INT64_MAX, &bytes)) {
      return Fail(command, "invalid BYTES '" + words[2] + "'");
    }
    state.devices[device].budget = size_t(bytes);
    return true;
  }
  if (verb == "stats") {
    if (!WantWords(command, 1, "stats")) return false;
    command.output = StatsJson(state);
    return true;
  }
  return Fail(command, "unknown command '" + verb +
                           "' (commands: reset, fail, fail-always, clear-faults, set-attribute, "
                           "set-memory, stats)");
}

}  // namespace

extern "C" int rmmjs_fake_control(const char* text, char* out, size_t out_size) {
  Command command;
  std::istringstream words(text != nullptr ? text : "");
  for (std::string word; words >> word;) command.words.push_back(word);
  bool ok = false;
  {
    State& state = Global();
    std::lock_guard<std::mutex> lock(state.mutex);
    ok = Run(command, state);
  }
  // Only stats writes output on success, and it has no effect, so a caller may simply retry
  // with a larger buffer.
  if (command.output.size() >= out_size || out == nullptr) {
    if (out != nullptr && out_size > 0) {
      std::snprintf(out, out_size, "output of %zu bytes does not fit", command.output.size());
    }
    return command.output.empty() && ok ? kControlOk : kControlOutputTooSmall;
  }
  std::memcpy(out, command.output.c_str(), command.output.size() + 1);
  return ok ? kControlOk : kControlError;
}
