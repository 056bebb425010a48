// librmmjs_fail_new.so, preloaded (LD_PRELOAD) into a test's child process: the process's
// operator new and delete, which can be told to fail one allocation of the calling thread, to
// reach the out-of-host-memory paths of the resources (host_oom_step.cc arms it).
// rmmjs_fail_new_after(n): the n-th operator new of this thread from now (0: the next) throws
// std::bad_alloc (the nothrow forms return null), once; -1 disarms. rmmjs_fail_new_left(): what is
// left of the countdown (-1: disarmed, or it fired).
#include <cstddef>
#include <cstdlib>
#include <new>

namespace {

thread_local long t_countdown = -1;

bool FailNow() {
  if (t_countdown < 0) return false;
  return t_countdown-- == 0;
}

void* Allocate(std::size_t size, std::size_t alignment) {
  if (size == 0) size = 1;
  if (alignment <= alignof(std::max_align_t)) return std::malloc(size);
  void* out = nullptr;
  return posix_memalign(&out, alignment, size) == 0 ? out : nullptr;
}

void* Throwing(std::size_t size, std::size_t alignment) {
  void* out = FailNow() ? nullptr : Allocate(size, alignment);
  if (out == nullptr) throw std::bad_alloc();
  return out;
}

void* Nothrow(std::size_t size, std::size_t alignment) noexcept {
  return FailNow() ? nullptr : Allocate(size, alignment);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) void rmmjs_fail_new_after(long n) { t_countdown = n; }
extern "C" __attribute__((visibility("default"))) long rmmjs_fail_new_left() { return t_countdown; }

void* operator new(std::size_t size) { return Throwing(size, 0); }
void* operator new[](std::size_t size) { return Throwing(size, 0); }
void* operator new(std::size_t size, std::align_val_t a) { return Throwing(size, static_cast<std::size_t>(a)); }
void* operator new[](std::size_t size, std::align_val_t a) { return Throwing(size, static_cast<std::size_t>(a)); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return Nothrow(size, 0); }
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept { return Nothrow(size, 0); }
void* operator new(std::size_t size, std::align_val_t a, const std::nothrow_t&) noexcept {
  return Nothrow(size, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t size, std::align_val_t a, const std::nothrow_t&) noexcept {
  return Nothrow(size, static_cast<std::size_t>(a));
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
