// The address-ordered chain of the block records that tile a region (an upstream allocation of
// core's coalescing free list, a superblock of the arena): each record has `previous` and `next`,
// the region its `first`. Splitting a block links a new record before it; merging two unlinks one.
#ifndef RMMJS_BLOCK_CHAIN_HPP
#define RMMJS_BLOCK_CHAIN_HPP

namespace rmmjs::block_chain {

// Links `front` into region's chain right before `block`.
template <class Region, class Record>
void LinkBefore(Region* region, Record* block, Record* front) {
  front->previous = block->previous;
  front->next = block;
  if (block->previous != nullptr) {
    block->previous->next = front;
  } else {
    region->first = front;
  }
  block->previous = front;
}

// Takes `block` out of region's chain (its own links are left as they were).
template <class Region, class Record>
void Unlink(Region* region, Record* block) {
  if (block->previous != nullptr) {
    block->previous->next = block->next;
  } else {
    region->first = block->next;
  }
  if (block->next != nullptr) block->next->previous = block->previous;
}

}  // namespace rmmjs::block_chain

#endif  // RMMJS_BLOCK_CHAIN_HPP
