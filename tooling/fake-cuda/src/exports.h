// Every driver entry point the fake exports, declared from core's own list so that names and
// signatures cannot drift from what core loads.
#pragma once

#include "rmmjs/cuda_driver.h"

// Entry points that core does not load (yet) but the fake offers, in the same X-macro form.
#define RMMJS_FAKE_EXTRA_FUNCTIONS(X) \
  X(cuMemAllocAsync, "cuMemAllocAsync", rmmjs_CUresult, (rmmjs_CUdeviceptr*, size_t, rmmjs_CUstream))

#define RMMJS_FAKE_ALL_FUNCTIONS(X) \
  RMMJS_DRIVER_FUNCTIONS(X)         \
  RMMJS_FAKE_EXTRA_FUNCTIONS(X)

// Each function is defined under its plain C++ name (first column, e.g. cuMemAlloc) and
// exported under the exact driver symbol (second column, e.g. cuMemAlloc_v2) via an asm label.
#define RMMJS_FAKE_DECLARE(name, symbol, ret, args) \
  extern "C" __attribute__((visibility("default"))) ret name args __asm__(symbol);
RMMJS_FAKE_ALL_FUNCTIONS(RMMJS_FAKE_DECLARE)
#undef RMMJS_FAKE_DECLARE

extern "C" __attribute__((visibility("default"))) int rmmjs_fake_control(const char* command, char* out,
                                                                         size_t out_size);
