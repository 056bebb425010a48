// Streams and events. Work completes as soon as it is issued, so every query says "done".
#include <algorithm>
#include <map>
#include <vector>

#include "state.h"

using namespace fake;

namespace {

constexpr unsigned kEventBlockingSync = 0x1;
constexpr unsigned kEventInterprocess = 0x4;
constexpr unsigned kEventWaitExternal = 0x1;

bool IsBuiltinStream(rmmjs_CUstream stream) { return reinterpret_cast<uintptr_t>(stream) <= 2; }

// The handles of the streams this thread destroyed, the last at the back: the next stream it
// creates gets one back (with a new id), as a handle the driver allocates may come back from the
// thread's allocator cache. So code that keys streams by handle is caught.
std::vector<CUstream_st*>& DestroyedOnThisThread() {
  thread_local std::vector<CUstream_st*> destroyed;
  return destroyed;
}

}  // namespace

extern "C" rmmjs_CUresult cuStreamCreateWithPriority(rmmjs_CUstream* stream, unsigned int flags, int priority) {
  Entry call(Symbol::cuStreamCreateWithPriority);
  if (call.status() != kSuccess) return call.status();
  if (stream == nullptr || (flags & ~unsigned(RMMJS_CU_STREAM_NON_BLOCKING)) != 0) {
    return kInvalidValue;
  }
  if (CurrentContext() == nullptr) return kInvalidContext;
  // Out-of-range priorities are clamped, as in the driver (lower numbers are higher priority).
  int clamped = std::clamp(priority, kStreamPriorityGreatest, kStreamPriorityLeast);
  State& state = call.state();
  CUstream_st fresh{CurrentDevice(), flags, clamped, state.next_stream_id++};
  std::vector<CUstream_st*>& destroyed = DestroyedOnThisThread();
  if (destroyed.empty()) {
    state.all_streams.emplace_back(new CUstream_st(fresh));
    *stream = state.all_streams.back().get();
  } else {
    *stream = destroyed.back();
    destroyed.pop_back();
    **stream = fresh;
  }
  state.live_streams.insert(*stream);
  return kSuccess;
}

extern "C" rmmjs_CUresult cuStreamDestroy(rmmjs_CUstream stream) {
  Entry call(Symbol::cuStreamDestroy);
  if (call.status() != kSuccess) return call.status();
  if (IsBuiltinStream(stream)) return kInvalidHandle;  // the default streams cannot be destroyed
  if (call.state().live_streams.erase(stream) != 1) return kInvalidHandle;
  DestroyedOnThisThread().push_back(stream);
  return kSuccess;
}

extern "C" rmmjs_CUresult cuStreamSynchronize(rmmjs_CUstream stream) {
  Entry call(Symbol::cuStreamSynchronize);
  if (call.status() != kSuccess) return call.status();
  return call.state().CheckStream(stream);
}

extern "C" rmmjs_CUresult cuStreamQuery(rmmjs_CUstream stream) {
  Entry call(Symbol::cuStreamQuery);
  if (call.status() != kSuccess) return call.status();
  return call.state().CheckStream(stream);
}

// Ids: the legacy stream of device d is 2d+1; a thread's per-thread stream of a device gets the
// next id the first time it is asked for; created streams got theirs at creation.
extern "C" rmmjs_CUresult cuStreamGetId(rmmjs_CUstream stream, unsigned long long* id) {
  Entry call(Symbol::cuStreamGetId);
  if (call.status() != kSuccess) return call.status();
  State& state = call.state();
  if (int result = state.CheckStream(stream)) return result;
  if (id == nullptr) return kInvalidValue;
  uintptr_t handle = reinterpret_cast<uintptr_t>(stream);
  if (handle == 2) {
    thread_local std::map<int, unsigned long long> per_thread;
    auto found = per_thread.find(CurrentDevice());
    if (found == per_thread.end()) found = per_thread.emplace(CurrentDevice(), state.next_stream_id++).first;
    *id = found->second;
  } else if (handle <= 1) {
    *id = 2ull * CurrentDevice() + 1;
  } else {
    *id = stream->id;
  }
  return kSuccess;
}

// A created stream's context is the one current when it was made; the default streams are the
// current context's (none current: CUDA_ERROR_INVALID_CONTEXT).
extern "C" rmmjs_CUresult cuStreamGetCtx(rmmjs_CUstream stream, rmmjs_CUcontext* context) {
  Entry call(Symbol::cuStreamGetCtx);
  if (call.status() != kSuccess) return call.status();
  State& state = call.state();
  if (int result = state.CheckStream(stream)) return result;
  if (context == nullptr) return kInvalidValue;
  *context = IsBuiltinStream(stream) ? CurrentContext() : state.devices[stream->device].primary_context.get();
  return kSuccess;
}

extern "C" rmmjs_CUresult cuStreamWaitEvent(rmmjs_CUstream stream, rmmjs_CUevent event, unsigned int flags) {
  Entry call(Symbol::cuStreamWaitEvent);
  if (call.status() != kSuccess) return call.status();
  State& state = call.state();
  if (int result = state.CheckStream(stream)) return result;
  if (int result = state.CheckEvent(event)) return result;
  return (flags & ~kEventWaitExternal) == 0 ? kSuccess : kInvalidValue;
}

extern "C" rmmjs_CUresult cuLaunchHostFunc(rmmjs_CUstream stream, rmmjs_CUhostFn function, void* user_data) {
  Entry call(Symbol::cuLaunchHostFunc);
  if (call.status() != kSuccess) return call.status();
  if (int result = call.state().CheckStream(stream)) return result;
  if (function == nullptr) return kInvalidValue;
  call.Unlock();  // the function may call back into the driver
  function(user_data);
  return kSuccess;
}

extern "C" rmmjs_CUresult cuEventCreate(rmmjs_CUevent* event, unsigned int flags) {
  Entry call(Symbol::cuEventCreate);
  if (call.status() != kSuccess) return call.status();
  constexpr unsigned kKnownFlags = kEventBlockingSync | RMMJS_CU_EVENT_DISABLE_TIMING | kEventInterprocess;
  if (event == nullptr || (flags & ~kKnownFlags) != 0) return kInvalidValue;
  // An interprocess event must also disable timing.
  if ((flags & kEventInterprocess) != 0 && (flags & RMMJS_CU_EVENT_DISABLE_TIMING) == 0) {
    return kInvalidValue;
  }
  if (CurrentContext() == nullptr) return kInvalidContext;
  State& state = call.state();
  state.all_events.emplace_back(new CUevent_st{CurrentDevice(), flags});
  *event = state.all_events.back().get();
  state.live_events.insert(*event);
  return kSuccess;
}

extern "C" rmmjs_CUresult cuEventDestroy(rmmjs_CUevent event) {
  Entry call(Symbol::cuEventDestroy);
  if (call.status() != kSuccess) return call.status();
  return call.state().live_events.erase(event) == 1 ? kSuccess : kInvalidHandle;
}

extern "C" rmmjs_CUresult cuEventRecord(rmmjs_CUevent event, rmmjs_CUstream stream) {
  Entry call(Symbol::cuEventRecord);
  if (call.status() != kSuccess) return call.status();
  if (int result = call.state().CheckEvent(event)) return result;
  if (int result = call.state().CheckStream(stream)) return result;
  // As the driver documents: the event and the stream must belong to the same context.
  int stream_device = IsBuiltinStream(stream) ? CurrentDevice() : stream->device;
  return event->device == stream_device ? kSuccess : kInvalidHandle;
}

extern "C" rmmjs_CUresult cuEventSynchronize(rmmjs_CUevent event) {
  Entry call(Symbol::cuEventSynchronize);
  if (call.status() != kSuccess) return call.status();
  return call.state().CheckEvent(event);
}

extern "C" rmmjs_CUresult cuEventQuery(rmmjs_CUevent event) {
  Entry call(Symbol::cuEventQuery);
  if (call.status() != kSuccess) return call.status();
  return call.state().CheckEvent(event);
}

extern "C" rmmjs_CUresult cuCtxSynchronize() {
  Entry call(Symbol::cuCtxSynchronize);
  if (call.status() != kSuccess) return call.status();
  return CurrentContext() != nullptr ? kSuccess : kInvalidContext;
}
