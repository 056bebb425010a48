// Keeping the shared libraries that resources run in loaded for the life of the process.
#pragma once

namespace rmmjs {

// Node unloads an addon's shared library once the last Node-API environment that loaded it has
// ended (a worker thread that exits). A resource outlives the environment that created it (the
// per-device registry, another thread's handle or a buffer keeps it), and its operations and its
// destroy are code of the library that made it; every addon calls core through a table in core.
// So the library holding `address` stays loaded until the process ends: core's at its load, each
// resource's when core initialises the resource's header (an addon's first resource pins it).
void KeepLibraryLoaded(const void* address);

}  // namespace rmmjs
