// The pool's blocks: best fit among equals, coalescing in any order, only with neighbours on the
// same stream's list, and upstream allocations given back whole whichever lists their blocks are on.
import { getCurrentDeviceResource, RMMError, Stream } from '@rmmjs/core';
import { PoolMemoryResource } from '@rmmjs/pool';
import { random, thrown } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';

const KiB = 1024;
const MiB = 1024 * KiB;
const base = () => getCurrentDeviceResource();

/** Allocates `count` blocks of `size`, each followed by a 256-byte block that keeps them apart. */
function apart(pool: PoolMemoryResource, count: number, size: number): bigint[] {
  return Array.from({ length: count }, () => {
    const ptr = pool.allocate(size);
    pool.allocate(256);
    return ptr;
  });
}

function shuffled<T>(items: T[], seed: number): T[] {
  const next = random(seed);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

describe('PoolMemoryResource blocks', () => {
  it('reuses free blocks of one size lowest address first, whatever order they were freed in', () => {
    using pool = new PoolMemoryResource(base(), { initialPoolSize: 64 * KiB });
    const blocks = apart(pool, 6, KiB);
    for (const ptr of shuffled(blocks, 7)) pool.deallocate(ptr, KiB);
    expect(blocks.map(() => pool.allocate(KiB))).toEqual(blocks);
  });

  it('among blocks that fit, takes the smallest, then the lowest address, and splits off its front', () => {
    using pool = new PoolMemoryResource(base(), { initialPoolSize: 64 * KiB });
    const sizes = [2 * KiB, KiB, 2 * KiB, KiB];
    const blocks = sizes.map((size) => apart(pool, 1, size)[0]);
    [3, 0, 2, 1].forEach((i) => pool.deallocate(blocks[i], sizes[i]));
    expect(pool.allocate(512)).toBe(blocks[1]); // the 1 KiB blocks first, the lower one
    expect(pool.allocate(KiB)).toBe(blocks[3]); // the other 1 KiB block, not what is left of the first
    expect(pool.allocate(512)).toBe(blocks[1] + 512n); // what is left of the first
    expect(pool.allocate(2 * KiB)).toBe(blocks[0]);
  });

  it('a run of blocks freed in any order coalesces into one block, and every block is then free once', () => {
    for (const seed of [1, 2, 3]) {
      using pool = new PoolMemoryResource(base(), { initialPoolSize: 64 * KiB });
      const blocks = Array.from({ length: 16 }, () => pool.allocate(KiB));
      const fence = pool.allocate(KiB);
      for (const ptr of shuffled(blocks, seed)) pool.deallocate(ptr, KiB);
      for (const ptr of blocks) {
        const error = thrown(() => pool.deallocate(ptr, KiB));
        expect(error).toBeInstanceOf(RMMError);
        expect(error.message).toBe(
          `PoolMemoryResource: cannot deallocate 0x${ptr.toString(16)} (1024 bytes): the range is already free (freed twice, or the wrong size)`,
        );
      }
      expect(pool.allocate(16 * KiB)).toBe(blocks[0]);
      expect(pool.allocate(KiB)).toBe(fence + 1024n); // the free space after the fence
      expect(pool.poolSize()).toBe(64 * KiB);
    }
  });

  it("a block coalesces only with neighbours on its own stream's list; merging the lists joins them all", () => {
    using pool = new PoolMemoryResource(base(), { initialPoolSize: 64 * KiB, maximumPoolSize: 64 * KiB });
    using other = new Stream();
    const [a, b, c] = [pool.allocate(KiB), pool.allocate(KiB), pool.allocate(KiB)];
    const rest = pool.allocate(61 * KiB); // the rest of the pool
    pool.deallocate(a, KiB, other);
    pool.deallocate(c, KiB);
    pool.deallocate(b, KiB); // joins c (the default stream's), not a (the other stream's)
    expect(pool.allocate(2 * KiB)).toBe(b);
    pool.deallocate(b, 2 * KiB);
    // No block of 3 KiB on any list: the other stream's list moves onto the default stream's.
    expect(pool.allocate(3 * KiB)).toBe(a);
    pool.deallocate(a, 3 * KiB);
    pool.deallocate(rest, 61 * KiB);
    expect(pool.allocate(64 * KiB)).toBe(a);
  });

  it('an upstream allocation whose free blocks are on several streams is given back whole under the maximum', () => {
    using pool = new PoolMemoryResource(base(), { initialPoolSize: MiB, maximumPoolSize: MiB + MiB / 2 });
    using one = new Stream();
    using two = new Stream();
    const halves = [pool.allocate(MiB / 2, one), pool.allocate(MiB / 2, two)];
    pool.deallocate(halves[0], MiB / 2, one);
    pool.deallocate(halves[1], MiB / 2, two);
    // 1.5 MiB fits in no list, nor in all free memory: the initial block goes back for one of 1.5 MiB.
    const large = pool.allocate(MiB + MiB / 2);
    expect(pool.poolSize()).toBe(MiB + MiB / 2);
    // The streams' lists kept nothing of the block that went: the pool is full.
    const error = thrown(() => pool.allocate(KiB, one));
    expect(error.name).toBe('OutOfMemoryError');
    pool.deallocate(large, MiB + MiB / 2);
    expect(pool.allocate(KiB, one)).toBe(large);
  });

  it('frees the first block of an upstream allocation after its record merged into a neighbour', () => {
    using pool = new PoolMemoryResource(base(), { initialPoolSize: 16 * KiB });
    const a = pool.allocate(KiB);
    const b = pool.allocate(KiB);
    pool.deallocate(b, KiB); // merges into the free rest
    pool.deallocate(a, KiB); // merges with it: one block again
    const again = pool.allocate(KiB);
    expect(again).toBe(a);
    pool.deallocate(again, KiB);
    expect(pool.allocate(16 * KiB)).toBe(a);
  });
});
