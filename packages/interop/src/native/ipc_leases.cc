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

std::string FileId(int fd) {
  struct stat status {};
  if (fstat(fd, &status) != 0) return "";
  return std::to_string(status.st_dev) + ":" + std::to_string(status.st_ino);
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

int TakeLease(const Lease& lease) {
  int fd = open(lease.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    LogAt(RMMJS_LOG_DEBUG, "openIpcHandle: no lease (" + lease.path + " cannot be opened): the exporter cannot tell");
    return -1;
  }
  struct flock lock = ByteLock(F_RDLCK, lease.slot);
  if (FileId(fd) != lease.file || fcntl(fd, F_OFD_SETLK, &lock) != 0) {
    LogAt(RMMJS_LOG_DEBUG, "openIpcHandle: no lease (" + lease.path + " is not the exporter's lease file)");
    close(fd);
    return -1;
  }
  return fd;
}

}  // namespace rmmjs::interop
