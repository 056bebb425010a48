// Spare records kept for reuse: a structure that splits and merges records (the pool's blocks, the
// arena's blocks and superblocks) takes none from the heap in its steady state, and giving one back
// never allocates, so that no free fails for want of host memory.
//
// SpareList<T, kCapacity> is a stack of at most kCapacity records, with room for all of them
// reserved when it is made (which may throw std::bad_alloc):
// - Take() hands out the record recycled last, or a new T() when none is kept (which may throw
//   std::bad_alloc). A record comes back as it was recycled: reset what matters before Recycle.
// - Recycle() keeps a record its caller no longer uses; when kCapacity are kept already, it deletes
//   the record instead. It never allocates.
// - The list deletes the records it keeps when it is destroyed; a record taken is the caller's, to
//   recycle or delete.
// Not thread-safe: the owner's lock guards it.
#ifndef RMMJS_SPARE_LIST_HPP
#define RMMJS_SPARE_LIST_HPP

#include <cstddef>
#include <memory>

namespace rmmjs {

template <class T, std::size_t kCapacity>
class SpareList {
  static_assert(kCapacity > 0, "a SpareList keeps at least one record");

 public:
  SpareList() : spares_(new T*[kCapacity]) {}
  ~SpareList() {
    for (std::size_t i = 0; i < count_; i++) delete spares_[i];
  }
  SpareList(const SpareList&) = delete;
  SpareList& operator=(const SpareList&) = delete;

  // How many records it keeps.
  std::size_t size() const { return count_; }

  T* Take() { return count_ != 0 ? spares_[--count_] : new T(); }

  void Recycle(T* record) noexcept {
    if (count_ == kCapacity) {
      delete record;
      return;
    }
    spares_[count_++] = record;
  }

 private:
  std::unique_ptr<T*[]> spares_;  // kCapacity slots; the first count_ hold records
  std::size_t count_ = 0;
};

}  // namespace rmmjs

#endif  // RMMJS_SPARE_LIST_HPP
