// A small fixed pool of threads that runs fn(0..count-1) in parallel, the caller taking part.
#pragma once

#include <functional>

namespace rmmjs {

// Runs fn(i) for every i in [0, count) on up to `count` threads (the calling thread included)
// and returns when all have finished. Where the system cannot start enough threads, the calling
// thread runs the indices left over.
void ParallelFor(int count, const std::function<void(int)>& fn);

}  // namespace rmmjs
