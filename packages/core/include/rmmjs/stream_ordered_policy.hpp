// What a StreamOrderedResource (rmmjs/stream_ordered_resource.hpp) asks of its policy, checked when
// the resource is compiled: a policy that lacks a member, or has one of another shape, stops the
// build with a static_assert that names it.
//
// The policy (Blocks) says what a block is and where memory comes from, and picks the FreeList
// that holds one stream's free blocks. It is a plain class:
//
//   class Blocks {
//    public:
//     static constexpr const char* kTypeName = "MyMemoryResource";  // the class name in JavaScript
//     using FreeList = ...;                  // one stream's free blocks (below)
//     Blocks(ResourceRef upstream, Args...); // the resource's constructor arguments
//     rmmjs_resource* Upstream() const;
//     FreeList NewFreeList();                // an empty list, for each stream the resource meets
//     // The initial memory, onto the legacy default stream's list (before the resource is shared).
//     rmmjs_status Init(FreeList& legacy);
//     // The size of the block that serves `bytes`, or the error (a request too large).
//     rmmjs_status BlockSize(size_t bytes, size_t* size) const;
//     // Under the lock:
//     // Records a block that a list (or Grow) gave up as handed out; the address the caller gets.
//     uintptr_t HandOut(FreeList::Block block) noexcept;
//     // A free of [ptr, ptr + bytes): takes the block off the record of blocks handed out, into
//     // *block (the resource then puts it on the stream's list, or hands it out again when that
//     // fails). Memory it did not hand out, or memory already free, is RMMJS_ERR_LOGIC and changes
//     // nothing.
//     rmmjs_status TakeBack(uintptr_t ptr, size_t bytes, FreeList::Block* block);
//     // Nothing on any list fits: new memory (its remainder onto own), and a block of `size` for
//     // the caller in *out (not handed out yet). Returns with the lock held; changes nothing when it
//     // throws.
//     rmmjs_status Grow(stream_ordered::Growth<FreeList>& growth, FreeList& own, rmmjs_stream stream,
//                       size_t size, FreeList::Block* out);
//     void Release();  // every upstream allocation back (the work on them has finished)
//
//     // Optional: a policy that can check a free without the lock gets per-thread caches of freed
//     // blocks (rmmjs/thread_cache.hpp) in front of the lists. Thread-safe, without the lock: takes
//     // [ptr, ptr + bytes) off the record of blocks handed out, filling the ptr, block size and
//     // record (its FreeList::Block) of *cached; false when that is not a block as handed out (or
//     // the policy keeps no record): the free then goes through TakeBack, which says why. Such a
//     // policy's HandOut is thread-safe too (a cached block is handed out again without the lock),
//     // and its FreeList::Block is a pointer to its record, which a CachedBlock carries.
//     bool TakeHandedOut(uintptr_t ptr, size_t bytes, CachedBlock* cached);
//   };
//
// A FreeList holds the free blocks of one stream, under the resource's lock. Core's
// CoalescingFreeList (rmmjs/coalescing_free_list.hpp: blocks of any size cut from upstream
// allocations, coalesced when freed) is one; FixedSizeMemoryResource has a queue of equal blocks.
//
//   class FreeList {
//    public:
//     using Block = ...;              // what it hands out and takes back: a record pointer or an
//                                     // address; Block{} is none
//     bool empty() const;
//     size_t free_bytes() const;
//     size_t Fit(size_t size) const;  // the size of the block Take would use, or 0
//     Block Take(size_t size);        // a block of `size` off the list, or Block{}
//     void Insert(Block block);       // a block that was handed out, free on this list
//     void MoveAllTo(FreeList& to);   // every block onto `to`
//   };
//
// Init, Grow, Take, Insert and MoveAllTo may throw std::bad_alloc (host memory for bookkeeping)
// before they change anything: the caller gets RMMJS_ERR_OUT_OF_MEMORY "<type>: out of host memory".
#ifndef RMMJS_STREAM_ORDERED_POLICY_HPP
#define RMMJS_STREAM_ORDERED_POLICY_HPP

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "rmmjs/abi.h"
#include "rmmjs/thread_cache.hpp"

namespace rmmjs {
namespace stream_ordered {

template <class FreeList>
class Growth;

namespace detail {

// Detect<void, Op, Args...>: whether Op<Args...> is well-formed; ::type is it (void when it is not).
template <class Always, template <class...> class Op, class... Args>
struct Detect : std::false_type {
  using type = void;
};
template <template <class...> class Op, class... Args>
struct Detect<std::void_t<Op<Args...>>, Op, Args...> : std::true_type {
  using type = Op<Args...>;
};
template <template <class...> class Op, class B>
inline constexpr bool kHas = Detect<void, Op, B>::value;
template <template <class...> class Op, class B>
using TypeOf = typename Detect<void, Op, B>::type;
// Whether Op<B> is well-formed and of type R.
template <class R, template <class...> class Op, class B>
inline constexpr bool kHasOfType = kHas<Op, B> && std::is_same_v<TypeOf<Op, B>, R>;

// The members of a policy B and of its FreeList, as the types of the expressions that use them.
template <class B>
using TypeName = std::decay_t<decltype(B::kTypeName)>;
template <class B>
using List = typename B::FreeList;
template <class B>
using Block = typename B::FreeList::Block;
template <class B>
using Upstream = decltype(std::declval<const B&>().Upstream());
template <class B>
using NewFreeList = decltype(std::declval<B&>().NewFreeList());
template <class B>
using Init = decltype(std::declval<B&>().Init(std::declval<List<B>&>()));
template <class B>
using BlockSize = decltype(std::declval<const B&>().BlockSize(size_t{}, std::declval<size_t*>()));
template <class B>
using HandOut = decltype(std::declval<B&>().HandOut(std::declval<Block<B>>()));
template <class B>
using HandOutNoexcept = std::enable_if_t<noexcept(std::declval<B&>().HandOut(std::declval<Block<B>>()))>;
template <class B>
using TakeBack = decltype(std::declval<B&>().TakeBack(uintptr_t{}, size_t{}, std::declval<Block<B>*>()));
template <class B>
using Grow = decltype(std::declval<B&>().Grow(std::declval<Growth<List<B>>&>(), std::declval<List<B>&>(),
                                              rmmjs_stream{}, size_t{}, std::declval<Block<B>*>()));
template <class B>
using Release = decltype(std::declval<B&>().Release());
template <class B>
using TakeHandedOut = decltype(std::declval<B&>().TakeHandedOut(uintptr_t{}, size_t{}, std::declval<CachedBlock*>()));

template <class B>
using Empty = decltype(std::declval<const List<B>&>().empty());
template <class B>
using FreeBytes = decltype(std::declval<const List<B>&>().free_bytes());
template <class B>
using Fit = decltype(std::declval<const List<B>&>().Fit(size_t{}));
template <class B>
using Take = decltype(std::declval<List<B>&>().Take(size_t{}));
template <class B>
using Insert = decltype(std::declval<List<B>&>().Insert(std::declval<Block<B>>()));
template <class B>
using MoveAllTo = decltype(std::declval<List<B>&>().MoveAllTo(std::declval<List<B>&>()));

}  // namespace detail

// Whether a policy supports per-thread caches (it has TakeHandedOut).
template <class Blocks>
inline constexpr bool kCachesFrees = detail::kHas<detail::TakeHandedOut, Blocks>;

// The checks, one static_assert a member; StreamOrderedResource<Blocks> asserts
// CheckedPolicy<Blocks>::value. What names FreeList or its Block is checked once those exist, so
// that one missing type gives one message.
template <class Blocks>
struct CheckedPolicy {
  static constexpr bool kList = detail::kHas<detail::List, Blocks>;
  static constexpr bool kBlock = detail::kHas<detail::Block, Blocks>;
  using List = detail::TypeOf<detail::List, Blocks>;    // void when there is none
  using Block = detail::TypeOf<detail::Block, Blocks>;  // likewise

  static_assert(detail::kHasOfType<const char*, detail::TypeName, Blocks>,
                "a StreamOrderedResource policy needs static constexpr const char* kTypeName");
  static_assert(kList, "a StreamOrderedResource policy needs using FreeList = ... (one stream's free blocks)");
  static_assert(!kList || kBlock, "the FreeList of a StreamOrderedResource policy needs using Block = ...");
  static_assert(detail::kHasOfType<rmmjs_resource*, detail::Upstream, Blocks>,
                "a StreamOrderedResource policy needs rmmjs_resource* Upstream() const");
  static_assert(!kList || detail::kHasOfType<List, detail::NewFreeList, Blocks>,
                "a StreamOrderedResource policy needs FreeList NewFreeList()");
  static_assert(!kList || detail::kHasOfType<rmmjs_status, detail::Init, Blocks>,
                "a StreamOrderedResource policy needs rmmjs_status Init(FreeList& legacy)");
  static_assert(detail::kHasOfType<rmmjs_status, detail::BlockSize, Blocks>,
                "a StreamOrderedResource policy needs rmmjs_status BlockSize(size_t bytes, size_t* size) const");
  static_assert(!kBlock || detail::kHasOfType<uintptr_t, detail::HandOut, Blocks>,
                "a StreamOrderedResource policy needs uintptr_t HandOut(FreeList::Block block) noexcept");
  static_assert(!detail::kHas<detail::HandOut, Blocks> || detail::kHas<detail::HandOutNoexcept, Blocks>,
                "a StreamOrderedResource policy's HandOut must be noexcept (it undoes a TakeBack)");
  static_assert(!kBlock || detail::kHasOfType<rmmjs_status, detail::TakeBack, Blocks>,
                "a StreamOrderedResource policy needs rmmjs_status TakeBack(uintptr_t ptr, size_t bytes, "
                "FreeList::Block* block)");
  static_assert(!kBlock || detail::kHasOfType<rmmjs_status, detail::Grow, Blocks>,
                "a StreamOrderedResource policy needs rmmjs_status Grow(stream_ordered::Growth<FreeList>& growth, "
                "FreeList& own, rmmjs_stream stream, size_t size, FreeList::Block* out)");
  static_assert(detail::kHasOfType<void, detail::Release, Blocks>,
                "a StreamOrderedResource policy needs void Release()");
  static_assert(!kCachesFrees<Blocks> || detail::kHasOfType<bool, detail::TakeHandedOut, Blocks>,
                "a StreamOrderedResource policy's TakeHandedOut(uintptr_t, size_t, CachedBlock*) returns bool");
  static_assert(!kCachesFrees<Blocks> || !kBlock || std::is_pointer_v<Block>,
                "a StreamOrderedResource policy with TakeHandedOut needs a FreeList whose Block is a pointer to "
                "its record (a CachedBlock carries it)");

  static_assert(!kList || detail::kHasOfType<bool, detail::Empty, Blocks>,
                "the FreeList of a StreamOrderedResource policy needs bool empty() const");
  static_assert(!kList || detail::kHasOfType<size_t, detail::FreeBytes, Blocks>,
                "the FreeList of a StreamOrderedResource policy needs size_t free_bytes() const");
  static_assert(!kList || detail::kHasOfType<size_t, detail::Fit, Blocks>,
                "the FreeList of a StreamOrderedResource policy needs size_t Fit(size_t size) const");
  static_assert(!kBlock || detail::kHasOfType<Block, detail::Take, Blocks>,
                "the FreeList of a StreamOrderedResource policy needs Block Take(size_t size)");
  static_assert(!kBlock || detail::kHasOfType<void, detail::Insert, Blocks>,
                "the FreeList of a StreamOrderedResource policy needs void Insert(Block block)");
  static_assert(!kList || detail::kHasOfType<void, detail::MoveAllTo, Blocks>,
                "the FreeList of a StreamOrderedResource policy needs void MoveAllTo(FreeList& to)");

  static constexpr bool value = true;
};

}  // namespace stream_ordered
}  // namespace rmmjs

#endif  // RMMJS_STREAM_ORDERED_POLICY_HPP
