// Keeping a shared library loaded for the life of the process.
//
// Node unloads an addon's shared library once the last Node-API environment that loaded it has
// ended (a worker thread that exits). Code that outlives the environment that loaded it must
// keep its library: a resource (the per-device registry, another thread's handle or a buffer
// keeps it; its operations and destroy are that library's code), and hooks handed to another
// library by address. Core keeps itself at load and each resource's library when it initialises
// the resource's header; an addon that hands out addresses of its own code calls this itself.
#ifndef RMMJS_LOADED_LIBRARIES_HPP
#define RMMJS_LOADED_LIBRARIES_HPP

#include <dlfcn.h>

#include <algorithm>
#include <mutex>
#include <new>
#include <vector>

namespace rmmjs {

// The library holding `address` (code or data) stays loaded until the process ends.
inline void KeepLibraryLoaded(const void* address) {
  static std::mutex mutex;
  static auto* kept = new std::vector<const void*>();  // the load addresses of the libraries kept
  Dl_info info{};
  if (address == nullptr || dladdr(address, &info) == 0 || info.dli_fname == nullptr) return;
  std::lock_guard<std::mutex> lock(mutex);
  if (std::find(kept->begin(), kept->end(), info.dli_fbase) != kept->end()) return;
  // RTLD_NOLOAD: the library already loaded, never another copy; RTLD_NODELETE: never unloaded.
  // The handle is never closed.
  if (dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE) == nullptr) return;
  try {
    kept->push_back(info.dli_fbase);
  } catch (const std::bad_alloc&) {
    // Kept all the same; the next call for that library only asks again.
  }
}

}  // namespace rmmjs

#endif  // RMMJS_LOADED_LIBRARIES_HPP
