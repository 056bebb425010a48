// The pool's free memory: RMM's coalescing_free_list, one per stream, but searched in O(log n).
//
// Every free block is in one address-ordered set shared by all streams (for coalescing and for
// catching double frees) and in the size-ordered set of the stream whose list it is on (for
// best fit: the smallest block that fits, the lowest address among equals, as RMM picks).
// Blocks coalesce only with neighbours on the same stream's list and never across the ends of
// an upstream allocation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

namespace rmmjs {
namespace pool {

struct StreamFreeList;

// One allocation taken from the upstream resource.
struct UpstreamBlock {
  uintptr_t begin;
  size_t size;
  uintptr_t end() const { return begin + size; }
};

// The upstream allocations of a pool, ordered by address (few: the pool grows geometrically).
class UpstreamBlocks {
 public:
  // The upstream block that contains ptr, or nullptr (valid until the next Add or Remove).
  const UpstreamBlock* Find(uintptr_t ptr) const;
  void Add(UpstreamBlock block);
  void Remove(uintptr_t begin);
  const std::vector<UpstreamBlock>& blocks() const { return blocks_; }

 private:
  std::vector<UpstreamBlock> blocks_;
};

struct SizeEntry;  // below: a FreeBlock and its SizeEntry point at each other

// Orders a stream's free blocks by (size, address): best fit is a lower_bound.
struct BySize {
  using is_transparent = void;
  using Key = std::pair<size_t, uintptr_t>;
  static Key KeyOf(const SizeEntry& entry);
  bool operator()(const SizeEntry& a, const SizeEntry& b) const { return KeyOf(a) < KeyOf(b); }
  bool operator()(const SizeEntry& a, const Key& b) const { return KeyOf(a) < b; }
  bool operator()(const Key& a, const SizeEntry& b) const { return a < KeyOf(b); }
};
// Named (and its iterator type used) while SizeEntry is still incomplete, as libstdc++ and libc++
// allow for node-based containers.
using SizeSet = std::set<SizeEntry, BySize>;

// A free block, in the address-ordered set shared by all streams, with where it is in its
// stream's size-ordered set. The fields are mutable so that a block can grow or shrink in place
// where that keeps the sets' order (it always does for the address).
struct FreeBlock {
  mutable uintptr_t address;
  mutable size_t size;
  mutable StreamFreeList* list;
  mutable SizeSet::iterator entry;
};
struct ByAddress {
  using is_transparent = void;
  bool operator()(const FreeBlock& a, const FreeBlock& b) const { return a.address < b.address; }
  bool operator()(const FreeBlock& a, uintptr_t b) const { return a.address < b; }
  bool operator()(uintptr_t a, const FreeBlock& b) const { return a < b.address; }
};
using AddressSet = std::set<FreeBlock, ByAddress>;

struct SizeEntry {
  mutable size_t size;
  mutable uintptr_t address;
  mutable AddressSet::iterator block;
};
inline BySize::Key BySize::KeyOf(const SizeEntry& entry) { return {entry.size, entry.address}; }

// The free blocks last used on one stream, by (size, address): best fit is a lower_bound.
struct StreamFreeList {
  SizeSet by_size;
  size_t free_bytes = 0;
  bool empty() const { return by_size.empty(); }
};

class CoalescingFreeBlocks {
 public:
  CoalescingFreeBlocks();

  // Removes the best fit for size from list and returns its address, leaving what is left of the
  // block on the list; 0 when no block on the list is large enough.
  uintptr_t TakeBestFit(StreamFreeList& list, size_t size);

  // The size of the block TakeBestFit would split, or 0.
  static size_t BestFitSize(const StreamFreeList& list, size_t size);

  // Puts [ptr, ptr + size) on list, coalescing it with its neighbours on the same list inside
  // upstream. False (and nothing changes) when the range overlaps a block that is already free.
  // May throw std::bad_alloc, before it changes anything.
  bool Insert(StreamFreeList& list, uintptr_t ptr, size_t size, const UpstreamBlock& upstream);

  // True when [ptr, ptr + size) overlaps a free block.
  bool Overlaps(uintptr_t ptr, size_t size) const;

  // Moves every block of from onto to, coalescing (never allocates).
  void MoveAll(StreamFreeList& from, StreamFreeList& to, const UpstreamBlocks& upstream);

  // True when free blocks cover all of upstream; the lists they are on are added to lists.
  bool IsWhollyFree(const UpstreamBlock& upstream, std::vector<StreamFreeList*>* lists) const;

  // Removes every free block inside upstream from its list.
  void RemoveAllIn(const UpstreamBlock& upstream);

  size_t block_count() const { return by_address_.size(); }

 private:
  // Gives block a new size and start (keeping its place in address order); its size entry is
  // updated in place when that keeps the size order, else moved.
  void Rekey(StreamFreeList& list, AddressSet::iterator block, size_t size, uintptr_t address);
  void Add(StreamFreeList& list, AddressSet::const_iterator hint, uintptr_t address, size_t size);
  // Merges upper, the free block right after lower on the same list, into lower.
  void Absorb(StreamFreeList& list, AddressSet::iterator lower, AddressSet::iterator upper);
  void Erase(AddressSet::iterator block);
  // Tree nodes are recycled, so the steady state allocates no memory.
  void Recycle(SizeSet::node_type node);
  void Recycle(AddressSet::node_type node);

  AddressSet by_address_;
  std::vector<AddressSet::node_type> spare_address_nodes_;
  std::vector<SizeSet::node_type> spare_size_nodes_;
};

}  // namespace pool
}  // namespace rmmjs
