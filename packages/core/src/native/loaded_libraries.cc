#include "loaded_libraries.h"

#include <dlfcn.h>

#include <algorithm>
#include <mutex>
#include <new>
#include <vector>

namespace rmmjs {

void KeepLibraryLoaded(const void* address) {
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
    // Kept all the same; the next resource of that library only asks again.
  }
}

}  // namespace rmmjs
