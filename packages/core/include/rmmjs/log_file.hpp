// Opening a file that a user names for a log (RMM_DEBUG_LOG_FILE, a LoggingResourceAdaptor's
// logFileName), shared by core's debug logger and the logging adaptor: never blocks, and never
// hands back a file whose writes could block the threads that log. As RMM, any path is written: a
// regular file (created, truncated), a terminal, /dev/null or another character device. A FIFO is
// refused (open() waits for a reader, and writes wait while the reader does not read), and so is a
// socket; a directory fails as open() says.
#ifndef RMMJS_LOG_FILE_HPP
#define RMMJS_LOG_FILE_HPP

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace rmmjs {

// Why a file of this type cannot take a log, or nullptr when it can.
inline const char* LogFileRefusal(mode_t mode) {
  if (S_ISFIFO(mode)) {
    return "it is a FIFO (a named pipe, or a standard stream that is a pipe), whose reader could block the threads "
           "that log: log to a regular file, a terminal or /dev/null";
  }
  if (S_ISSOCK(mode)) return "it is a socket: log to a regular file, a terminal or /dev/null";
  return nullptr;
}

// A file descriptor (close-on-exec, blocking writes) open for writing at path, created or
// truncated; or -1 with *why saying what went wrong (strerror's words, or why the file is refused).
inline int OpenLogFile(const char* path, std::string* why) {
  struct stat named {};
  const char* refusal = ::stat(path, &named) == 0 ? LogFileRefusal(named.st_mode) : nullptr;
  if (refusal != nullptr) {
    *why = refusal;
    return -1;
  }
  // Without blocking: a FIFO made after the stat, with no reader, fails (ENXIO) instead of waiting.
  int fd = ::open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, 0644);
  if (fd < 0) {
    *why = std::strerror(errno);
    return -1;
  }
  struct stat opened {};
  refusal = ::fstat(fd, &opened) == 0 ? LogFileRefusal(opened.st_mode) : std::strerror(errno);
  int flags = refusal == nullptr ? ::fcntl(fd, F_GETFL) : -1;
  if (refusal == nullptr && (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0))
    refusal = std::strerror(errno);
  if (refusal != nullptr) {
    *why = refusal;
    ::close(fd);
    return -1;
  }
  return fd;
}

}  // namespace rmmjs

#endif  // RMMJS_LOG_FILE_HPP
