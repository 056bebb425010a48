// Free blocks by (size, start), for best fit as RMM picks it: the smallest block that fits, the
// lowest address among equals. The pool's per-stream free lists and the arena's superblock sets
// index their free block records with it.
//
// Size classes with a bitmap of the classes that hold a block: exact 256-byte steps below
// 256 KiB, then 64 classes per power of two. Each class is a pairing heap ordered by (size,
// start), so a request that is a whole class's smallest size (any 256-byte multiple below
// 256 KiB) takes the heap's root, and others look only at the smaller blocks of their own class
// before the next class that holds one. A red-black tree over every block cost a cache miss per
// level; here a search reads a bitmap word or two and a root.
//
// The entries are intrusive: each record has one as a member, which is in the index while its
// block is free (Insert) and out of it while the block is handed out (Remove), so indexing and
// freeing never allocate. An entry keeps its key inline (a search reads no record, and a record's
// own size and start may change while it is indexed; Rekey changes the key) and points at its
// record. Not thread-safe: the owner's lock guards it.
#ifndef RMMJS_BEST_FIT_INDEX_HPP
#define RMMJS_BEST_FIT_INDEX_HPP

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace rmmjs {

template <class Record, class Start>
class BestFitIndex {
 public:
  struct Entry {
    explicit Entry(Record* of) : record(of) {}
    Entry(const Entry&) = delete;
    Entry& operator=(const Entry&) = delete;

    std::size_t size = 0;
    Start start{};
    Record* const record;
    // The pairing heap: the leftmost child, the next sibling, and the left sibling or (for a
    // leftmost child) the parent; nullptr for a root.
    Entry* child = nullptr;
    Entry* sibling = nullptr;
    Entry* previous = nullptr;
  };

  BestFitIndex() : roots_(kClasses, nullptr) {}  // may throw std::bad_alloc
  BestFitIndex(const BestFitIndex&) = delete;
  BestFitIndex& operator=(const BestFitIndex&) = delete;

  bool empty() const { return count_ == 0; }
  // The record with the smallest key, or nullptr.
  Record* first() const {
    std::size_t found = NextClass(0);
    return found == kNone ? nullptr : roots_[found]->record;
  }

  // The best fit for `size` bytes: an entry of the smallest block that fits, or nullptr.
  const Entry* BestFit(std::size_t size) const {
    std::size_t at = ClassOf(size);
    if (words_[at >> 6] >> (at & 63) & 1) {
      if (ClassMinimum(at) >= size) return roots_[at];  // every block of the class fits
      if (const Entry* fit = SmallestFitting(roots_[at], size)) return fit;
      ++at;
    }
    std::size_t next = at < kClasses ? NextClass(at) : kNone;
    return next == kNone ? nullptr : roots_[next];
  }

  // Indexes an entry that is in no index, with this key.
  void Insert(Entry* entry, std::size_t size, Start start) {
    entry->size = size;
    entry->start = start;
    const std::size_t at = ClassOf(size);
    roots_[at] = roots_[at] == nullptr ? entry : Meld(roots_[at], entry);
    words_[at >> 6] |= std::uint64_t{1} << (at & 63);
    summary_ |= std::uint64_t{1} << (at >> 6);
    ++count_;
  }

  // Takes an indexed entry out.
  void Remove(Entry* entry) {
    const std::size_t at = ClassOf(entry->size);
    Entry*& root = roots_[at];
    if (entry == root) {
      root = MergePairs(entry->child);
    } else {
      if (entry->previous->child == entry) {
        entry->previous->child = entry->sibling;
      } else {
        entry->previous->sibling = entry->sibling;
      }
      if (entry->sibling != nullptr) entry->sibling->previous = entry->previous;
      if (Entry* children = MergePairs(entry->child)) root = Meld(root, children);
    }
    entry->child = entry->sibling = entry->previous = nullptr;
    if (root == nullptr) {
      words_[at >> 6] &= ~(std::uint64_t{1} << (at & 63));
      if (words_[at >> 6] == 0) summary_ &= ~(std::uint64_t{1} << (at >> 6));
    }
    --count_;
  }

  // An indexed entry's new key.
  void Rekey(Entry* entry, std::size_t size, Start start) {
    Remove(entry);
    Insert(entry, size, start);
  }

  // Moves an entry of `from` here, as it is.
  void MoveFrom(BestFitIndex& from, Entry* entry) {
    from.Remove(entry);
    Insert(entry, entry->size, entry->start);
  }

 private:
  static constexpr unsigned kStepShift = 8;                         // 256-byte steps below
  static constexpr std::size_t kExactLimit = std::size_t{1} << 18;  // 256 KiB: 1024 exact classes
  static constexpr unsigned kExactLimitShift = 18;
  static constexpr unsigned kSplitShift = 6;  // then 64 classes per power of two
  static constexpr std::size_t kExactClasses = kExactLimit >> kStepShift;
  static constexpr std::size_t kClasses = kExactClasses + ((sizeof(std::size_t) * 8 - kExactLimitShift) << kSplitShift);
  static constexpr std::size_t kWords = (kClasses + 63) / 64;
  static_assert(kWords <= 64, "one summary word covers the bitmap");
  static constexpr std::size_t kNone = ~std::size_t{0};

  static std::size_t ClassOf(std::size_t size) {
    if (size < kExactLimit) return size >> kStepShift;
    const unsigned log = 63 - static_cast<unsigned>(__builtin_clzll(size));
    return kExactClasses + ((log - kExactLimitShift) << kSplitShift) + ((size >> (log - kSplitShift)) & 63);
  }
  // The smallest size of a class.
  static std::size_t ClassMinimum(std::size_t at) {
    if (at < kExactClasses) return at << kStepShift;
    const std::size_t above = at - kExactClasses;
    const unsigned log = static_cast<unsigned>(above >> kSplitShift) + kExactLimitShift;
    return (std::size_t{64} + (above & 63)) << (log - kSplitShift);
  }

  static bool Less(const Entry& a, const Entry& b) {
    return a.size < b.size || (a.size == b.size && a.start < b.start);
  }

  // The first class at or after `at` that holds a block, or kNone.
  std::size_t NextClass(std::size_t at) const {
    std::size_t word = at >> 6;
    std::uint64_t bits = words_[word] & (~std::uint64_t{0} << (at & 63));
    if (bits != 0) return (word << 6) + static_cast<std::size_t>(__builtin_ctzll(bits));
    const std::uint64_t later = word + 1 >= 64 ? 0 : summary_ & (~std::uint64_t{0} << (word + 1));
    if (later == 0) return kNone;
    word = static_cast<std::size_t>(__builtin_ctzll(later));
    return (word << 6) + static_cast<std::size_t>(__builtin_ctzll(words_[word]));
  }

  // The smallest entry of at least `size` bytes in a class's heap (whose smallest size is below
  // `size`), or nullptr: a walk that skips the subtrees of entries that fit or cannot beat the
  // best found, since a subtree holds no key below its root's.
  static const Entry* SmallestFitting(const Entry* root, std::size_t size) {
    const Entry* best = nullptr;
    const Entry* entry = root;
    while (entry != nullptr) {
      if (entry->size >= size) {
        if (best == nullptr || Less(*entry, *best)) best = entry;
      } else if (entry->child != nullptr && (best == nullptr || Less(*entry, *best))) {
        entry = entry->child;
        continue;
      }
      while (entry != nullptr && entry->sibling == nullptr) entry = Parent(entry);
      if (entry != nullptr) entry = entry->sibling;
    }
    return best;
  }

  static const Entry* Parent(const Entry* entry) {
    while (entry->previous != nullptr && entry->previous->child != entry) entry = entry->previous;
    return entry->previous;
  }

  // Two roots (no siblings) into one.
  static Entry* Meld(Entry* a, Entry* b) {
    if (Less(*b, *a)) std::swap(a, b);
    b->sibling = a->child;
    if (a->child != nullptr) a->child->previous = b;
    b->previous = a;
    a->child = b;
    return a;
  }

  // A list of siblings into one root (the pairing heap's two passes).
  static Entry* MergePairs(Entry* first) {
    if (first == nullptr) return nullptr;
    Entry* pairs = nullptr;  // melded pairs, the last first (linked by sibling)
    while (first != nullptr) {
      Entry* a = first;
      Entry* b = a->sibling;
      first = b == nullptr ? nullptr : b->sibling;
      a->sibling = a->previous = nullptr;
      Entry* pair = a;
      if (b != nullptr) {
        b->sibling = b->previous = nullptr;
        pair = Meld(a, b);
      }
      pair->sibling = pairs;
      pairs = pair;
    }
    Entry* root = pairs;
    pairs = pairs->sibling;
    root->sibling = nullptr;
    while (pairs != nullptr) {
      Entry* next = pairs->sibling;
      pairs->sibling = nullptr;
      root = Meld(root, pairs);
      pairs = next;
    }
    return root;
  }

  std::vector<Entry*> roots_;                  // per class: its heap's root, or nullptr
  std::array<std::uint64_t, kWords> words_{};  // per class: whether it holds a block
  std::uint64_t summary_ = 0;                  // per word of words_: whether it is not 0
  std::size_t count_ = 0;
};

}  // namespace rmmjs

#endif  // RMMJS_BEST_FIT_INDEX_HPP
