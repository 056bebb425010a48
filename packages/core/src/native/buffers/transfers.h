// DeviceBuffers on their way from one JavaScript thread to another (DeviceBuffer#transfer /
// DeviceBuffer.fromTransferred): a process-wide table from an id to a buffer that no thread owns
// until one takes it out. Taking is atomic, so a buffer is claimed (or reclaimed) exactly once.
#pragma once

#include <cstdint>
#include <vector>

#include "buffers/device_buffer.h"

namespace rmmjs {

// Puts buffer in the table (which then owns it) under a new id.
uint64_t AddTransfer(DeviceBuffer* buffer);
// Takes the buffer of id out of the table (the caller owns it), or nullptr when it is not there:
// claimed or reclaimed already, or never transferred.
DeviceBuffer* TakeTransfer(uint64_t id);
// Puts a buffer taken out by TakeTransfer back under its id (a reclaim that could not free it).
void RestoreTransfer(uint64_t id, DeviceBuffer* buffer);
// Frees every buffer still in the table, with a warning in the debug log when there were any (the
// main thread's exit: a transfer nobody claimed must not leak silently).
void FreeUnclaimedTransfers();

}  // namespace rmmjs
