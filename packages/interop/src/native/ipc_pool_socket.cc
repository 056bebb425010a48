// A memory pool travels between processes as a POSIX file descriptor (cuMemPoolExportToShareable-
// Handle), which only the kernel can hand over: over a Unix domain socket, as SCM_RIGHTS ancillary
// data. Node has no public API for that, so both ends are here, each on a thread of the pool
// (socket calls that never wait past a deadline) behind a promise:
//   sendPool: listens at the path, accepts one process, sends it the descriptor and a JSON line
//             {"version":1,"pool":<id>,"deviceUuid":<uuid>}, then removes the socket file;
//   receivePoolDescriptor: connects to the path (again and again until it is there), receives them.
// The Python helper (python/rmmjs_ipc.py) speaks the same protocol.
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>

#include "driver_support.h"
#include "interop.h"
#include "ipc_common.h"
#include "rmmjs/resource.hpp"

namespace rmmjs::interop {
namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kMaxPayload = 4096;

// A failure of the socket side: an errno name (ETIMEDOUT, ENOENT, ...) and a message.
struct SocketError {
  std::string code;
  std::string message;
};

const char* ErrnoName(int error) {
  switch (error) {
    case ENOENT:
      return "ENOENT";
    case EACCES:
      return "EACCES";
    case EPERM:
      return "EPERM";
    case ENOTDIR:
      return "ENOTDIR";
    case EADDRINUSE:
      return "EADDRINUSE";
    case ECONNREFUSED:
      return "ECONNREFUSED";
    case ECONNRESET:
      return "ECONNRESET";
    case EPIPE:
      return "EPIPE";
    case EMFILE:
      return "EMFILE";
    default:
      return "EIO";
  }
}

SocketError Errno(const std::string& what, const std::string& path) {
  int error = errno;
  return {ErrnoName(error), what + " " + path + ": " + std::strerror(error)};
}

bool Address(const std::string& path, sockaddr_un* address) {
  std::memset(address, 0, sizeof(*address));
  address->sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof(address->sun_path)) return false;
  std::memcpy(address->sun_path, path.c_str(), path.size());
  return true;
}

int MillisecondsLeft(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left > 0 ? static_cast<int>(left) : 0;
}

// A worker on the thread pool whose promise resolves with what Finish makes of its result, or
// rejects with an Error whose code is the errno name.
class SocketWorker : public Napi::AsyncWorker {
 public:
  SocketWorker(Napi::Env env, std::string path, int timeout_ms)
      : Napi::AsyncWorker(env),
        deferred_(Napi::Promise::Deferred::New(env)),
        path_(std::move(path)),
        deadline_(Clock::now() + std::chrono::milliseconds(timeout_ms)),
        timeout_ms_(timeout_ms) {}
  Napi::Promise Promise() { return deferred_.Promise(); }

 protected:
  void Fail(SocketError error) {
    error_ = std::move(error);
    SetError(error_.message);
  }
  void OnError(const Napi::Error&) override {
    Napi::Error error = Napi::Error::New(Env(), error_.message);
    error.Set("code", error_.code);
    deferred_.Reject(error.Value());
  }
  Napi::Promise::Deferred deferred_;
  std::string path_;
  Clock::time_point deadline_;
  int timeout_ms_;
  SocketError error_;
};

class SendWorker : public SocketWorker {
 public:
  SendWorker(Napi::Env env, std::string path, int timeout_ms, int fd, std::string payload)
      : SocketWorker(env, std::move(path), timeout_ms), fd_(fd), payload_(std::move(payload)) {}
  ~SendWorker() override { close(fd_); }

 protected:
  void Execute() override {
    sockaddr_un address;
    if (!Address(path_, &address)) {
      return Fail({"ENAMETOOLONG", "sendIpcPool: the socket path must have 1 to " +
                                       std::to_string(sizeof(address.sun_path) - 1) + " bytes"});
    }
    int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listener < 0) return Fail(Errno("sendIpcPool: cannot create a socket for", path_));
    // A socket file left behind by a process that ended is in the way; anything else is not ours.
    struct stat existing {};
    if (lstat(path_.c_str(), &existing) == 0 && S_ISSOCK(existing.st_mode)) unlink(path_.c_str());
    if (bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 || listen(listener, 1) != 0) {
      SocketError error = Errno("sendIpcPool: cannot listen at", path_);
      close(listener);
      return Fail(error);
    }
    pollfd ready{listener, POLLIN, 0};
    int polled = 0;
    do {
      polled = poll(&ready, 1, MillisecondsLeft(deadline_));
    } while (polled < 0 && errno == EINTR);
    int connection = polled > 0 ? accept4(listener, nullptr, nullptr, SOCK_CLOEXEC) : -1;
    if (connection < 0) {
      SocketError error = polled == 0 ? SocketError{"ETIMEDOUT", "sendIpcPool: no process connected to " + path_ +
                                                                     " within " + std::to_string(timeout_ms_) + " ms"}
                                      : Errno("sendIpcPool: accepting at", path_);
      close(listener);
      unlink(path_.c_str());
      return Fail(error);
    }
    close(listener);
    unlink(path_.c_str());
    // The descriptor rides along with the first byte of the payload.
    iovec part{payload_.data(), payload_.size()};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    msghdr message{};
    message.msg_iov = &part;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof(control);
    cmsghdr* header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(header), &fd_, sizeof(int));
    ssize_t sent = sendmsg(connection, &message, MSG_NOSIGNAL);
    if (sent < 0) {
      SocketError error = Errno("sendIpcPool: sending the pool to", path_);
      close(connection);
      return Fail(error);
    }
    // The rest of the payload, if the first call did not take it all.
    for (size_t done = static_cast<size_t>(sent); done < payload_.size();) {
      ssize_t more = send(connection, payload_.data() + done, payload_.size() - done, MSG_NOSIGNAL);
      if (more <= 0) {
        SocketError error = Errno("sendIpcPool: sending the pool to", path_);
        close(connection);
        return Fail(error);
      }
      done += static_cast<size_t>(more);
    }
    close(connection);
  }
  void OnOK() override { deferred_.Resolve(Env().Undefined()); }

 private:
  int fd_;
  std::string payload_;
};

class ReceiveWorker : public SocketWorker {
 public:
  using SocketWorker::SocketWorker;
  ~ReceiveWorker() override {
    if (fd_ >= 0) close(fd_);  // never handed to JavaScript
  }

 protected:
  void Execute() override {
    sockaddr_un address;
    if (!Address(path_, &address)) {
      return Fail({"ENAMETOOLONG", "receiveIpcPool: the socket path must have 1 to " +
                                       std::to_string(sizeof(address.sun_path) - 1) + " bytes"});
    }
    int connection = -1;
    // The sender may not listen yet, or not accept (its backlog full: EAGAIN): try until the
    // deadline. Non-blocking, so that a sender that never accepts cannot hold the thread past it.
    while (true) {
      connection = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
      if (connection < 0) return Fail(Errno("receiveIpcPool: cannot create a socket for", path_));
      if (connect(connection, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0) break;
      SocketError error = Errno("receiveIpcPool: cannot connect to", path_);
      bool retry = errno == ENOENT || errno == ECONNREFUSED || errno == EAGAIN;
      close(connection);
      if (!retry) return Fail(error);
      if (MillisecondsLeft(deadline_) == 0) {
        return Fail({"ETIMEDOUT", "receiveIpcPool: nothing was sent at " + path_ + " within " +
                                      std::to_string(timeout_ms_) + " ms"});
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    char buffer[kMaxPayload];
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    while (payload_.size() < kMaxPayload) {
      pollfd ready{connection, POLLIN, 0};
      int polled = poll(&ready, 1, MillisecondsLeft(deadline_));
      if (polled < 0 && errno == EINTR) continue;
      if (polled <= 0) break;
      iovec part{buffer, sizeof(buffer)};
      msghdr message{};
      message.msg_iov = &part;
      message.msg_iovlen = 1;
      message.msg_control = fd_ < 0 ? control : nullptr;
      message.msg_controllen = fd_ < 0 ? sizeof(control) : 0;
      ssize_t got = recvmsg(connection, &message, MSG_CMSG_CLOEXEC);
      if (got < 0 && (errno == EAGAIN || errno == EINTR)) continue;
      if (got <= 0) break;
      for (cmsghdr* header = CMSG_FIRSTHDR(&message); header != nullptr; header = CMSG_NXTHDR(&message, header)) {
        if (header->cmsg_level == SOL_SOCKET && header->cmsg_type == SCM_RIGHTS && fd_ < 0) {
          std::memcpy(&fd_, CMSG_DATA(header), sizeof(int));
        }
      }
      payload_.append(buffer, static_cast<size_t>(got));
    }
    close(connection);
    if (fd_ < 0) {
      Fail({"EPROTO", "receiveIpcPool: what was sent at " + path_ + " carries no file descriptor"});
    }
  }
  void OnOK() override {
    Napi::Object out = Napi::Object::New(Env());
    out.Set("fd", fd_);
    out.Set("payload", payload_);
    fd_ = -1;  // JavaScript hands it to importPool, which closes it
    deferred_.Resolve(out);
  }

 private:
  int fd_ = -1;
  std::string payload_;
};

}  // namespace

// sendPool(poolHandle, device, socketPath, timeoutMs) -> Promise<void>
Napi::Value SendPool(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  rmmjs_status status = RMMJS_OK;
  const rmmjs_driver_api* driver = Driver(&status);
  js::Check(env, status);
  bool lossless = false;
  auto pool_handle = static_cast<uintptr_t>(info[0].As<Napi::BigInt>().Uint64Value(&lossless));
  int device = info[1].As<Napi::Number>().Int32Value();
  std::string path = info[2].As<Napi::String>().Utf8Value();
  int timeout_ms = info[3].As<Napi::Number>().Int32Value();
  std::string uuid;
  js::Check(env, DeviceUuid(device, &uuid));
  int fd = -1;
  {
    DeviceContext context(device);
    js::Check(env, context.status());
    if (driver->cuMemPoolExportToShareableHandle(&fd, reinterpret_cast<rmmjs_CUmemoryPool>(pool_handle),
                                                 RMMJS_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
                                                 0) != RMMJS_CUDA_SUCCESS) {
      ThrowInvalidValue(env,
                        "The argument \"pool\" is a CUDA memory pool created without IPC: create it with "
                        "new CudaAsyncMemoryResource({ enableIpc: true })");
    }
  }
  std::string payload = "{\"version\":1,\"pool\":\"" + PoolId(pool_handle) + "\",\"deviceUuid\":\"" + uuid + "\"}\n";
  auto* worker = new SendWorker(env, path, timeout_ms, fd, payload);
  Napi::Promise promise = worker->Promise();
  worker->Queue();
  return promise;
}

// receivePoolDescriptor(socketPath, timeoutMs) -> Promise<{ fd, payload }>
Napi::Value ReceivePoolDescriptor(const Napi::CallbackInfo& info) {
  auto* worker =
      new ReceiveWorker(info.Env(), info[0].As<Napi::String>().Utf8Value(), info[1].As<Napi::Number>().Int32Value());
  Napi::Promise promise = worker->Promise();
  worker->Queue();
  return promise;
}

// closeDescriptor(fd): for a received descriptor that importPool never got.
Napi::Value CloseDescriptor(const Napi::CallbackInfo& info) {
  close(info[0].As<Napi::Number>().Int32Value());
  return info.Env().Undefined();
}

}  // namespace rmmjs::interop
