// C++ convenience over the C ABI: implement a resource as a plain class and get its ops table.
//
//   class MyResource {
//    public:
//     static constexpr const char* kTypeName = "MyResource";
//     rmmjs_status Allocate(size_t bytes, rmmjs_stream stream, void** out);
//     rmmjs_status Deallocate(void* ptr, size_t bytes, rmmjs_stream stream);
//     // optional:
//     rmmjs_status Init(rmmjs_resource* self);          // after construction; failure destroys
//     bool IsEqual(const MyResource& other) const;      // default: identity
//     rmmjs_resource* Upstream() const;                 // default: none
//   };
//   rmmjs_resource* mr; rmmjs::NewResource<MyResource>(device, flags, &mr, args...);
#ifndef RMMJS_RESOURCE_HPP
#define RMMJS_RESOURCE_HPP

#include <exception>
#include <new>
#include <string>
#include <type_traits>
#include <utility>

#include "rmmjs/abi.h"

namespace rmmjs {

// The core API table this addon received (set once at load; see napi.hpp).
inline const rmmjs_core_api* g_core_api = nullptr;
inline const rmmjs_core_api* CoreApi() { return g_core_api; }

template <class T>
struct ResourceBox {
  rmmjs_resource header;  // first: a rmmjs_resource* is a ResourceBox<T>*
  T impl;
  template <class... Args>
  explicit ResourceBox(Args&&... args) : header{}, impl(std::forward<Args>(args)...) {}
};

template <class T>
T& ImplOf(rmmjs_resource* mr) {
  return reinterpret_cast<ResourceBox<T>*>(mr)->impl;
}
template <class T>
const T& ImplOf(const rmmjs_resource* mr) {
  return reinterpret_cast<const ResourceBox<T>*>(mr)->impl;
}

namespace detail {
template <class T, class = void>
struct HasInit : std::false_type {};
template <class T>
struct HasInit<T, std::void_t<decltype(std::declval<T&>().Init(nullptr))>> : std::true_type {};
template <class T, class = void>
struct HasIsEqual : std::false_type {};
template <class T>
struct HasIsEqual<T, std::void_t<decltype(std::declval<const T&>().IsEqual(std::declval<const T&>()))>>
    : std::true_type {};
template <class T, class = void>
struct HasUpstream : std::false_type {};
template <class T>
struct HasUpstream<T, std::void_t<decltype(std::declval<const T&>().Upstream())>> : std::true_type {};

// Runs op (returning rmmjs_status) so that no C++ exception crosses the C ABI: std::bad_alloc
// (host memory for a resource's bookkeeping) becomes RMMJS_ERR_OUT_OF_MEMORY "<type>: out of host
// memory", any other std::exception RMMJS_ERR_LOGIC with its what().
// Inlined always: the allocate and deallocate of every resource pass through it, and a call that
// GCC leaves out of line (its handlers make it look large) costs each of them ~20 instructions.
template <class T, class Op>
[[gnu::always_inline]] inline rmmjs_status Guarded(Op&& op) {
  try {
    return op();
  } catch (const std::bad_alloc&) {
    return CoreApi()->set_error(RMMJS_ERR_OUT_OF_MEMORY, 0,
                                (std::string(T::kTypeName) + ": out of host memory").c_str());
  } catch (const std::exception& error) {
    return CoreApi()->set_error(RMMJS_ERR_LOGIC, 0, error.what());
  }
}
}  // namespace detail

template <class T>
const rmmjs_resource_ops* OpsOf() {
  static_assert(!std::is_polymorphic<T>::value, "resources are plain classes");
  static const rmmjs_resource_ops ops = {
      sizeof(rmmjs_resource_ops),
      T::kTypeName,
      [](rmmjs_resource* self, size_t bytes, rmmjs_stream stream, void** out) {
        return detail::Guarded<T>([&] { return ImplOf<T>(self).Allocate(bytes, stream, out); });
      },
      [](rmmjs_resource* self, void* ptr, size_t bytes, rmmjs_stream stream) {
        return detail::Guarded<T>([&] { return ImplOf<T>(self).Deallocate(ptr, bytes, stream); });
      },
      [](const rmmjs_resource* self, const rmmjs_resource* other) -> int {
        if (self == other) return 1;
        if constexpr (detail::HasIsEqual<T>::value) {
          return other->ops == self->ops && ImplOf<T>(self).IsEqual(ImplOf<T>(other)) ? 1 : 0;
        }
        return 0;
      },
      [](rmmjs_resource* self) { delete reinterpret_cast<ResourceBox<T>*>(self); },
      [](const rmmjs_resource* self) -> rmmjs_resource* {
        if constexpr (detail::HasUpstream<T>::value) return ImplOf<T>(self).Upstream();
        return nullptr;
      },
  };
  return &ops;
}

template <class T>
bool IsA(const rmmjs_resource* mr) {
  return mr != nullptr && mr->ops == OpsOf<T>();
}

// Creates a resource with refcount 1 in *out, or returns the failure (nothing leaks). A
// constructor or Init that throws becomes an error status (see detail::Guarded), never an
// exception across the addon boundary.
template <class T, class... Args>
rmmjs_status NewResource(int32_t device, uint32_t flags, rmmjs_resource** out, Args&&... args) {
  const rmmjs_core_api* api = CoreApi();
  ResourceBox<T>* box = nullptr;
  rmmjs_status status = detail::Guarded<T>([&] {
    box = new ResourceBox<T>(std::forward<Args>(args)...);
    return RMMJS_OK;
  });
  if (status != RMMJS_OK) return status;
  status = api->resource_init_checked(&box->header, OpsOf<T>(), device, flags);
  if (status != RMMJS_OK) {
    delete box;
    return status;
  }
  if constexpr (detail::HasInit<T>::value) {
    status = detail::Guarded<T>([&] { return box->impl.Init(&box->header); });
    if (status != RMMJS_OK) {
      api->release(&box->header);
      return status;
    }
  }
  *out = &box->header;
  return RMMJS_OK;
}

// An owned reference to a resource (retain on copy, release on destruction).
class ResourceRef {
 public:
  ResourceRef() = default;
  // Adopts a reference the caller already owns.
  static ResourceRef Adopt(rmmjs_resource* mr) { return ResourceRef(mr); }
  static ResourceRef Retain(rmmjs_resource* mr) {
    if (mr != nullptr) CoreApi()->retain(mr);
    return ResourceRef(mr);
  }
  ResourceRef(const ResourceRef& other) : mr_(other.mr_) {
    if (mr_ != nullptr) CoreApi()->retain(mr_);
  }
  ResourceRef(ResourceRef&& other) noexcept : mr_(std::exchange(other.mr_, nullptr)) {}
  ResourceRef& operator=(ResourceRef other) noexcept {
    std::swap(mr_, other.mr_);
    return *this;
  }
  ~ResourceRef() {
    if (mr_ != nullptr) CoreApi()->release(mr_);
  }
  rmmjs_resource* get() const { return mr_; }
  rmmjs_resource* release() { return std::exchange(mr_, nullptr); }
  explicit operator bool() const { return mr_ != nullptr; }

 private:
  explicit ResourceRef(rmmjs_resource* mr) : mr_(mr) {}
  rmmjs_resource* mr_ = nullptr;
};

// The streams abi.h names by number. The legacy default stream (0 and CU_STREAM_LEGACY) is one
// stream for every thread of a context and is never destroyed; the per-thread default stream
// (CU_STREAM_PER_THREAD) is a different stream on every thread.
inline bool IsLegacyDefaultStream(rmmjs_stream stream) { return stream == 0 || stream == 1; }
inline bool IsPerThreadDefaultStream(rmmjs_stream stream) { return stream == 2; }
inline bool IsDefaultStream(rmmjs_stream stream) { return stream <= 2; }

// Makes a device's primary context current for a scope (through core's API table: a no-op in
// host mode). Resources use it around driver work that means "the current context": events,
// the default streams, allocations of native callers that come with no context.
class DeviceContext {
 public:
  explicit DeviceContext(int32_t device) : status_(CoreApi()->context_push(device, &saved_)) {}
  ~DeviceContext() {
    if (status_ == RMMJS_OK) CoreApi()->context_restore(saved_);
  }
  DeviceContext(const DeviceContext&) = delete;
  DeviceContext& operator=(const DeviceContext&) = delete;
  rmmjs_status status() const { return status_; }

 private:
  void* saved_ = nullptr;
  rmmjs_status status_;
};

}  // namespace rmmjs

#endif  // RMMJS_RESOURCE_HPP
