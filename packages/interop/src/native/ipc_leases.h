// How an exporting process tells that another process still has its memory open (CUDA itself
// cannot say). The exporter keeps one memory file of leases, one byte per export; an importer
// takes a shared lock (an open file description lock, F_OFD_SETLK) on its byte through
// /proc/<exporter pid>/fd/<fd> and keeps it while its view lives; the lock goes when the view is
// freed, or when the importer's process ends however it ends. The exporter's guard on the buffer
// asks for an exclusive lock on the byte (F_OFD_GETLK): a conflict means an importer is there.
// Where the importer cannot open the file (another PID namespace, another machine's handle) it
// takes no lease, and the exporter cannot tell.
#pragma once

#include <cstdint>
#include <string>

#include "rmmjs/abi.h"

namespace rmmjs::interop {

// A random id of this process: handles carry it, and opening one in its own process is refused.
const std::string& ProcessToken();

struct Lease {
  std::string path;  // /proc/<pid>/fd/<fd> of the exporter's lease file
  std::string file;  // "<device>:<inode>" of that file, to check that the path still names it
  uint64_t slot = 0;
};

// A new lease slot for an export, and the buffer guard that refuses to let the memory go while an
// importer holds it (the guard retires the slot when it goes).
rmmjs_status NewLease(Lease* lease, rmmjs_buffer_guard** guard);
// Whether the guard of a slot still guards its buffer.
bool LeaseActive(uint64_t slot);

// An importer's shared lock on a lease: a file descriptor to close when the view goes, or -1 when
// the lease cannot be taken (no such file here, in another PID namespace: the exporter then cannot
// tell). A path that names anything else than the lease file (a FIFO, a socket, a device, a
// directory, another file) is never opened in a way that could block, and is refused: -1, and
// *refusal says why (a message naming "handle.lease.path").
int TakeLease(const Lease& lease, std::string* refusal);

}  // namespace rmmjs::interop
