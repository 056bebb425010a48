#include "ipc_leases.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mutex>
#include <random>
#include <set>

#include "rmmjs/status.hpp"

namespace rmmjs::interop {
namespace {

struct LeaseFile {
  std::mutex mutex;
  int fd = -1;
  std::string path;
  std::string file;
  uint64_t next_slot = 0;
  std::set<uint64_t> active;  // slots whose guard exists
};

LeaseFile& Leases() {
  static auto* leases = new LeaseFile();  // never destroyed: guards may go during exit
  return *leases;
}

std::string FileId(const struct stat& status) {
  return std::to_string(status.st_dev) + ":" + std::to_string(status.st_ino);
}

std::string FileId(int fd) {
  struct stat status {};
  if (fstat(fd, &status) != 0) return "";
  return FileId(status);
}

// What a file is, for a message.
std::string KindOf(const struct stat& status) {
  if (S_ISFIFO(status.st_mode)) return "a FIFO";
  if (S_ISSOCK(status.st_mode)) return "a socket";
  if (S_ISCHR(status.st_mode)) return "a character device";
  if (S_ISBLK(status.st_mode)) return "a block device";
  if (S_ISDIR(status.st_mode)) return "a directory";
  if (!S_ISREG(status.st_mode)) return "not a regular file";
  return "another file (" + FileId(status) + ")";
}

// Why what a lease's path names is not the lease file ("" when it is).
std::string NotTheLeaseFile(const Lease& lease, const struct stat& named) {
  if (S_ISREG(named.st_mode) && FileId(named) == lease.file) return "";
  return "The property \"handle.lease.path\" must name the exporter's lease file (a regular file, " + lease.file +
         "), and " + lease.path + " is " + KindOf(named);
}

struct flock ByteLock(short type, uint64_t slot) {
  struct flock lock {};
  lock.l_type = type;
  lock.l_whence = SEEK_SET;
  lock.l_start = static_cast<off_t>(slot);
  lock.l_len = 1;
  return lock;
}

struct LeaseGuard {
  rmmjs_buffer_guard header;  // first: a rmmjs_buffer_guard* of a lease is a LeaseGuard*
  uint64_t slot;

  static rmmjs_status Check(rmmjs_buffer_guard* self, void*, size_t) {
    LeaseFile& leases = Leases();
    struct flock lock = ByteLock(F_WRLCK, reinterpret_cast<LeaseGuard*>(self)->slot);
    if (fcntl(leases.fd, F_OFD_GETLK, &lock) != 0 || lock.l_type == F_UNLCK) return RMMJS_OK;
    return Fail(RMMJS_ERR_LOGIC,
                "DeviceBuffer: another process still has this memory open through its CUDA IPC handle "
                "(exportIpcHandle): that process must free its view (from openIpcHandle) before this buffer is "
                "freed or moved");
  }

  static void Destroy(rmmjs_buffer_guard* self) {
    auto* guard = reinterpret_cast<LeaseGuard*>(self);
    LeaseFile& leases = Leases();
    {
      std::lock_guard<std::mutex> lock(leases.mutex);
      leases.active.erase(guard->slot);
    }
    delete guard;
  }
};

}  // namespace

const std::string& ProcessToken() {
  static const std::string token = [] {
    std::random_device random;
    std::string text;
    for (int i = 0; i < 4; ++i) {
      char word[9];
      snprintf(word, sizeof(word), "%08x", static_cast<unsigned>(random()));
      text += word;
    }
    return text;
  }();
  return token;
}

rmmjs_status NewLease(Lease* lease, rmmjs_buffer_guard** guard) {
  LeaseFile& leases = Leases();
  std::lock_guard<std::mutex> lock(leases.mutex);
  if (leases.fd < 0) {
    int fd = memfd_create("rmmjs-ipc-leases", MFD_CLOEXEC);
    if (fd < 0) return Fail(RMMJS_ERR_LOGIC, "exportIpcHandle: cannot create the lease file (memfd_create failed)");
    leases.fd = fd;
    leases.path = "/proc/" + std::to_string(getpid()) + "/fd/" + std::to_string(fd);
    leases.file = FileId(fd);
  }
  lease->path = leases.path;
  lease->file = leases.file;
  lease->slot = leases.next_slot++;
  leases.active.insert(lease->slot);
  *guard = &(new LeaseGuard{{sizeof(rmmjs_buffer_guard), LeaseGuard::Check, LeaseGuard::Destroy}, lease->slot})->header;
  return RMMJS_OK;
}

bool LeaseActive(uint64_t slot) {
  LeaseFile& leases = Leases();
  std::lock_guard<std::mutex> lock(leases.mutex);
  return leases.active.count(slot) != 0;
}

int TakeLease(const Lease& lease, std::string* refusal) {
  // The handle comes from a peer: what its path names is looked at before it is opened (a FIFO
  // without a writer would block open() for ever, a device may act on it), opened without blocking,
  // and looked at again (it may have changed in between).
  struct stat named {};
  if (stat(lease.path.c_str(), &named) != 0) {
    LogAt(RMMJS_LOG_DEBUG, "openIpcHandle: no lease (" + lease.path + " cannot be opened): the exporter cannot tell");
    return -1;
  }
  *refusal = NotTheLeaseFile(lease, named);
  if (!refusal->empty()) return -1;
  int fd = open(lease.path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    LogAt(RMMJS_LOG_DEBUG, "openIpcHandle: no lease (" + lease.path + " cannot be opened): the exporter cannot tell");
    return -1;
  }
  struct stat opened {};
  if (fstat(fd, &opened) != 0) opened.st_mode = 0;
  *refusal = NotTheLeaseFile(lease, opened);
  struct flock lock = ByteLock(F_RDLCK, lease.slot);
  if (!refusal->empty() || fcntl(fd, F_OFD_SETLK, &lock) != 0) {
    if (refusal->empty()) LogAt(RMMJS_LOG_DEBUG, "openIpcHandle: no lease (" + lease.path + " cannot be locked)");
    close(fd);
    return -1;
  }
  return fd;
}

}  // namespace rmmjs::interop
