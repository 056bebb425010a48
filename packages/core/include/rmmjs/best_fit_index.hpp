// Free blocks by (size, start), for best fit as RMM picks it: the smallest block that fits, the
// lowest address among equals. The pool's per-stream free lists and the arena's superblock sets
// index their free block records with it.
//
// Each entry keeps its key inline (a search reads no record) and points at its record. A record
// owns its entry from the start (NewSlot) and hands it to the index while it is free (Insert), and
// takes it back when it is handed out (Remove): indexing and freeing never allocate. Not
// thread-safe: the owner's lock guards it.
#ifndef RMMJS_BEST_FIT_INDEX_HPP
#define RMMJS_BEST_FIT_INDEX_HPP

#include <cstddef>
#include <iterator>
#include <set>
#include <utility>

namespace rmmjs {

template <class Record, class Start>
class BestFitIndex {
 public:
  struct Entry {
    mutable std::size_t size;
    mutable Start start;
    Record* record;
  };

 private:
  struct Order {
    using is_transparent = void;
    struct Key {
      std::size_t size;
      Start start;
    };
    static bool Less(std::size_t a_size, Start a_start, std::size_t b_size, Start b_start) {
      return a_size < b_size || (a_size == b_size && a_start < b_start);
    }
    bool operator()(const Entry& a, const Entry& b) const { return Less(a.size, a.start, b.size, b.start); }
    bool operator()(const Entry& a, const Key& b) const { return Less(a.size, a.start, b.size, b.start); }
    bool operator()(const Key& a, const Entry& b) const { return Less(a.size, a.start, b.size, b.start); }
  };
  using Set = std::set<Entry, Order>;

 public:
  using Position = typename Set::iterator;  // an indexed record's entry
  using Slot = typename Set::node_type;     // an entry out of any index, held by its record

  // A record's entry, for its whole life (a node handle comes only out of a set). May throw
  // std::bad_alloc.
  static Slot NewSlot(Record* record) {
    Set scratch;
    scratch.insert(Entry{0, Start{}, record});
    return scratch.extract(scratch.begin());
  }

  bool empty() const { return set_.empty(); }
  // The record with the smallest key, or nullptr.
  Record* first() const { return set_.empty() ? nullptr : set_.begin()->record; }

  // The best fit for `size` bytes: an entry of the smallest block that fits, or nullptr.
  const Entry* BestFit(std::size_t size) const {
    auto fit = set_.lower_bound(typename Order::Key{size, Start{}});
    return fit == set_.end() ? nullptr : &*fit;
  }

  Position Insert(Slot slot, std::size_t size, Start start) {
    slot.value().size = size;
    slot.value().start = start;
    return set_.insert(std::move(slot)).position;
  }

  Slot Remove(Position entry) { return set_.extract(entry); }

  // An indexed record's new key; its entry stays in place when that keeps the order.
  Position Rekey(Position entry, std::size_t size, Start start) {
    auto next = std::next(entry);
    const bool before_next = next == set_.end() || Order::Less(size, start, next->size, next->start);
    const bool after_previous =
        entry == set_.begin() || Order::Less(std::prev(entry)->size, std::prev(entry)->start, size, start);
    if (before_next && after_previous) {
      entry->size = size;
      entry->start = start;
      return entry;
    }
    return Insert(Remove(entry), size, start);
  }

  // Moves an entry of `from` here, as it is.
  Position MoveFrom(BestFitIndex& from, Position entry) { return set_.insert(from.set_.extract(entry)).position; }

 private:
  Set set_;
};

}  // namespace rmmjs

#endif  // RMMJS_BEST_FIT_INDEX_HPP
