// RMM's arena tests (cpp/tests/mr/arena_mr_tests.cpp, python/rmm/rmm/tests/test_arena_memory_resource.py),
// translated to what JavaScript can observe: addresses relative to the first allocation (the
// start of the global arena), which allocations succeed, and the errors.
import {
  DeviceBuffer,
  OutOfMemoryError,
  RMMError,
  getCurrentDeviceResource,
  setCurrentDeviceResource,
} from '@rmmjs/core';
import { ArenaMemoryResource, arenaSummary } from '@rmmjs/arena';
import {
  KiB,
  MiB,
  disposeAfterEach,
  expectBytes,
  pattern,
  random,
  restoreCurrentDeviceResourceAfterEach,
  thrown,
} from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';
import { offset, upstreamCases } from './upstreams.js';

const noRoom = (bytes: string) => `Maximum pool size exceeded (failed to allocate ${bytes}): No room in arena.`;

describe.each(upstreamCases)('ArenaMemoryResource over $name', ({ make: makeUpstream }) => {
  const keep = disposeAfterEach();
  restoreCurrentDeviceResourceAfterEach(); // after-hooks run last first: restored, then disposed
  const make = () => keep(makeUpstream());
  const arena = (options: ConstructorParameters<typeof ArenaMemoryResource>[1]) =>
    keep(new ArenaMemoryResource(make(), options));

  it('the arena is taken once, as one block of arenaSize', () => {
    const mr = arena({ arenaSize: 4 * MiB });
    expect(arenaSummary(mr)).toEqual({
      arenaSize: 4 * MiB,
      threadArenas: 0,
      streamArenas: 0,
      globalSuperblocks: 1,
      globalFreeBytes: 4 * MiB,
      globalLargestFreeBlock: 4 * MiB,
    });
    mr[Symbol.dispose]();
  });

  it('arenaSize is aligned down to 256 and accepts byte strings', () => {
    expect(arenaSummary(arena({ arenaSize: MiB + 255 })).arenaSize).toBe(MiB);
    expect(arenaSummary(arena({ arenaSize: '2 MiB' })).arenaSize).toBe(2 * MiB);
    expect(arenaSummary(arena({ arenaSize: '3mib' })).arenaSize).toBe(3 * MiB);
  });

  it('RMM SizeSmallerThanSuperblockSize: an arena under 1 MiB is a logic error', () => {
    for (const arenaSize of [256, MiB - 1, MiB - 256, '1000 KiB']) {
      const error = thrown(() => arena({ arenaSize }));
      expect(error).toBeInstanceOf(RMMError);
      expect(error).not.toBeInstanceOf(OutOfMemoryError);
      expect(error.code).toBe('ERR_RMM_LOGIC');
      expect(error.message).toBe('Arena size smaller than minimum superblock size.');
    }
  });

  it('RMM ArenaAllocate: a 1 MiB block takes a whole superblock, the next block the next one', () => {
    const mr = arena({ arenaSize: 4 * MiB });
    const first = mr.allocate(MiB);
    const second = mr.allocate(256);
    expect(offset(second, first)).toBe(MiB);
    expect(arenaSummary(mr)).toMatchObject({ threadArenas: 1, globalSuperblocks: 1, globalFreeBytes: 2 * MiB });
    mr.deallocate(first, MiB);
    mr.deallocate(second, 256);
  });

  it('RMM ArenaDeallocate: freed blocks coalesce back into the superblock', () => {
    const mr = arena({ arenaSize: 4 * MiB });
    const base = mr.allocate(MiB);
    mr.deallocate(base, MiB);
    const small = mr.allocate(256);
    expect(small).toBe(base);
    mr.deallocate(small, 256);
    expect(mr.allocate(MiB)).toBe(base);
    mr.deallocate(base, MiB);
  });

  it.each([
    ['RMM ArenaDeallocateMergePrevious', [0, 1]],
    ['RMM ArenaDeallocateMergeNext', [1, 0]],
  ])('%s: two freed neighbours serve one larger block', (_name, order) => {
    const mr = arena({ arenaSize: 4 * MiB });
    const blocks = [mr.allocate(256), mr.allocate(256), mr.allocate(256)];
    expect(blocks.map((ptr) => offset(ptr, blocks[0]))).toEqual([0, 256, 512]);
    for (const i of order) mr.deallocate(blocks[i], 256);
    expect(mr.allocate(512)).toBe(blocks[0]);
    mr.deallocate(blocks[0], 512);
    mr.deallocate(blocks[2], 256);
  });

  it('RMM ArenaDeallocateMergePreviousAndNext: freed blocks and the rest make 2 KiB at the start', () => {
    const mr = arena({ arenaSize: 4 * MiB });
    const a = mr.allocate(256);
    const b = mr.allocate(256);
    mr.deallocate(a, 256);
    mr.deallocate(b, 256);
    const c = mr.allocate(2 * KiB);
    expect(c).toBe(a);
    mr.deallocate(c, 2 * KiB);
  });

  it('sizes are rounded up to 256: blocks of 1 and 257 bytes take 256 and 512', () => {
    const mr = arena({ arenaSize: 4 * MiB });
    const a = mr.allocate(1);
    const b = mr.allocate(257);
    const c = mr.allocate(100);
    expect([offset(b, a), offset(c, a)]).toEqual([256, 768]);
    expect(a % 256n).toBe(0n);
    mr.deallocate(b, 257);
    expect(mr.allocate(300)).toBe(b);
    mr.deallocate(b, 300);
    mr.deallocate(a, 1);
    mr.deallocate(c, 100);
    expect(mr.allocate(0)).toBe(0n);
    mr.deallocate(0n, 0);
    // A size of 0 frees nothing (as RMM): the block is still allocated afterwards.
    const d = mr.allocate(256);
    mr.deallocate(d, 0);
    expect(mr.allocate(256)).not.toBe(d);
    mr.deallocate(d, 256);
    expect(mr.allocate(256)).toBe(d);
  });

  it('RMM GlobalArenaAllocate/Deallocate: blocks over 1 MiB come from the global arena', () => {
    const mr = arena({ arenaSize: 4 * MiB });
    const a = mr.allocate(2 * MiB);
    expect(arenaSummary(mr)).toMatchObject({ threadArenas: 0, globalSuperblocks: 2, globalFreeBytes: 2 * MiB });
    mr.deallocate(a, 2 * MiB);
    expect(arenaSummary(mr)).toMatchObject({ globalSuperblocks: 1, globalFreeBytes: 4 * MiB });
    expect(mr.allocate(2 * MiB)).toBe(a);
    mr.deallocate(a, 2 * MiB);
  });

  it('RMM GlobalArenaDeallocateAlignUp: freed large blocks coalesce into the whole arena', () => {
    const mr = arena({ arenaSize: 4 * MiB });
    const a = mr.allocate(MiB + 256);
    const b = mr.allocate(MiB + 512);
    expect(offset(b, a)).toBe(MiB + 256);
    mr.deallocate(a, MiB + 256);
    mr.deallocate(b, MiB + 512);
    expect(mr.allocate(4 * MiB)).toBe(a);
    mr.deallocate(a, 4 * MiB);
  });

  it('RMM ArenaDefragment: superblocks held by an arena go back when a large allocation needs them', () => {
    const mr = arena({ arenaSize: 4 * MiB });
    const blocks = [0, 1, 2, 3].map(() => mr.allocate(MiB));
    for (const ptr of blocks) mr.deallocate(ptr, MiB);
    // The thread's arena keeps its 4 superblocks until a defragmentation.
    expect(arenaSummary(mr)).toMatchObject({ threadArenas: 1, globalSuperblocks: 0, globalFreeBytes: 0 });
    const all = mr.allocate(4 * MiB);
    expect(all).toBe(blocks[0]);
    mr.deallocate(all, 4 * MiB);
    expect(arenaSummary(mr)).toMatchObject({ globalSuperblocks: 1, globalFreeBytes: 4 * MiB });
  });

  it('exhaustion: OutOfMemoryError with RMM message, and nothing is lost', () => {
    const mr = arena({ arenaSize: 4 * MiB });
    const all = mr.allocate(4 * MiB);
    for (const [bytes, text] of [
      [1, '256.000000 B'],
      [MiB, '1024.000000 KiB'], // RMM's format_bytes moves up a unit only past 1024
      [2 * MiB + 1, '2.000244 MiB'],
    ] as const) {
      const error = thrown(() => mr.allocate(bytes));
      expect(error).toBeInstanceOf(OutOfMemoryError);
      expect(error.code).toBe('ERR_RMM_OUT_OF_MEMORY');
      expect(error.message).toBe(noRoom(text));
    }
    mr.deallocate(all, 4 * MiB);
    const error = thrown(() => mr.allocate(4 * MiB + 1));
    expect(error.message).toBe(noRoom('4.000244 MiB'));
    expect(mr.allocate(4 * MiB)).toBe(all);
    mr.deallocate(all, 4 * MiB);
  });

  it('a sequence of successes and failures in a 2 MiB arena', () => {
    const mr = arena({ arenaSize: 2 * MiB });
    const a = mr.allocate(MiB);
    const b = mr.allocate(MiB);
    expect(offset(b, a)).toBe(MiB);
    expect(thrown(() => mr.allocate(256)).code).toBe('ERR_RMM_OUT_OF_MEMORY');
    mr.deallocate(a, MiB);
    const small = [mr.allocate(512 * KiB), mr.allocate(512 * KiB)];
    expect(small).toEqual([a, a + BigInt(512 * KiB)]);
    expect(thrown(() => mr.allocate(256)).code).toBe('ERR_RMM_OUT_OF_MEMORY');
    mr.deallocate(small[1], 512 * KiB);
    mr.deallocate(b, MiB);
    // The thread's arena still holds a superblock with a live block: a defragmentation moves it
    // to the global arena, but 2 MiB in one piece is not there until that block is freed.
    expect(thrown(() => mr.allocate(2 * MiB)).message).toBe(noRoom('2.000000 MiB'));
    mr.deallocate(small[0], 512 * KiB);
    expect(mr.allocate(2 * MiB)).toBe(a);
    mr.deallocate(a, 2 * MiB);
  });

  it('RMM SmallMediumLarge', () => {
    const mr = arena({ arenaSize: 64 * MiB });
    const small = mr.allocate(256);
    const medium = mr.allocate(16 * MiB);
    const large = mr.allocate(40 * MiB);
    mr.deallocate(small, 256);
    mr.deallocate(medium, 16 * MiB);
    mr.deallocate(large, 40 * MiB);
    expect(mr.allocate(64 * MiB)).toBe(small);
    mr.deallocate(small, 64 * MiB);
  });

  it('freeing memory it does not hold, or twice: RMMError "allocation not found", state unchanged', () => {
    const mr = arena({ arenaSize: 4 * MiB });
    const a = mr.allocate(1000);
    const big = mr.allocate(2 * MiB);
    mr.deallocate(a, 1000);
    for (const [ptr, bytes] of [
      [a, 1000],
      [big + BigInt(2 * MiB), 256],
      [a + BigInt(256), 256],
      [8n, 256],
      [a + BigInt(64 * MiB), 256],
    ] as const) {
      const error = thrown(() => mr.deallocate(ptr, bytes));
      expect(error).toBeInstanceOf(RMMError);
      expect(error.code).toBe('ERR_RMM_LOGIC');
      expect(error.message).toMatch(/^allocation not found/);
    }
    mr.deallocate(big, 2 * MiB);
    expect(thrown(() => mr.deallocate(big, 2 * MiB)).message).toMatch(/^allocation not found/);
    expect(mr.allocate(4 * MiB)).toBe(a);
    mr.deallocate(a, 4 * MiB);
  });

  // Found by the fuzzer (tooling/fuzz): a pointer inside a live block (or a live block with another
  // size) was taken back, and the arena then handed out memory still in use.
  it('a pointer inside a live block, or a live block with another size, is refused and never handed out twice', () => {
    const mr = arena({ arenaSize: 4 * MiB });
    const a = mr.allocate(1000);
    const big = mr.allocate(2 * MiB);
    for (const [ptr, bytes] of [
      [a + 256n, 256],
      [a, 256],
      [a, 2000],
      [big + 256n, 256],
      [big, MiB],
    ] as const) {
      const error = thrown(() => mr.deallocate(ptr, bytes));
      expect(error).toBeInstanceOf(RMMError);
      expect(error.code).toBe('ERR_RMM_LOGIC');
      expect(error.message).toMatch(/^allocation not found/);
    }
    const others = Array.from({ length: 8 }, () => mr.allocate(256));
    for (const ptr of others) {
      expect(ptr >= a && ptr < a + 1024n).toBe(false);
      expect(ptr >= big && ptr < big + BigInt(2 * MiB)).toBe(false);
    }
    for (const ptr of others) mr.deallocate(ptr, 256);
    mr.deallocate(a, 1000);
    mr.deallocate(big, 2 * MiB);
  });

  it('Python test_arena_memory_resource: DeviceBuffers round-trip through it as the current resource', () => {
    setCurrentDeviceResource(arena({ arenaSize: 16 * MiB }));
    for (const [size, seed] of [
      [1, 1],
      [100, 2],
      [1000, 3],
      [100_000, 4],
      [3 * MiB, 5],
    ]) {
      const buffer = new DeviceBuffer({ data: pattern(size, seed) });
      expect(buffer.size).toBe(size);
      expectBytes(buffer.toBytes(), pattern(size, seed));
      const copy = buffer.copy();
      expect(copy.ptr).not.toBe(buffer.ptr);
      expectBytes(copy.toBytes(), pattern(size, seed));
      copy.free();
      buffer.free();
    }
  });

  it('a seeded random workload: live blocks never overlap and keep their bytes', () => {
    const arenaSize = 48 * MiB;
    const mr = arena({ arenaSize });
    const next = random(7);
    const live: { buffer: DeviceBuffer; seed: number }[] = [];
    const check = () => {
      const ranges = live.map(({ buffer }) => [buffer.ptr, buffer.ptr + BigInt(buffer.size)] as const);
      ranges.sort((x, y) => (x[0] < y[0] ? -1 : 1));
      for (let i = 1; i < ranges.length; i++) expect(ranges[i][0] >= ranges[i - 1][1]).toBe(true);
      for (const { buffer, seed } of live) expectBytes(buffer.toBytes(), pattern(buffer.size, seed));
    };
    let failures = 0;
    for (let step = 0; step < 400; step++) {
      if (live.length > 0 && next() < 0.45) {
        const [{ buffer, seed }] = live.splice(Math.floor(next() * live.length), 1);
        expectBytes(buffer.toBytes(), pattern(buffer.size, seed));
        buffer.free();
      } else {
        // Mostly small blocks, some over 1 MiB (from the global arena).
        const size = next() < 0.1 ? MiB + Math.floor(next() * 2 * MiB) : 1 + Math.floor(next() * 200 * KiB);
        try {
          live.push({ buffer: new DeviceBuffer({ data: pattern(size, step), mr }), seed: step });
        } catch (error) {
          expect((error as Error).message).toMatch(/^Maximum pool size exceeded/);
          failures++;
        }
      }
      if (step % 100 === 99) check();
    }
    check();
    expect(failures).toBeLessThan(10);
    for (const { buffer } of live) buffer.free();
    const all = mr.allocate(arenaSize);
    mr.deallocate(all, arenaSize);
  });

  it('keeps its upstream alive and exposes it', () => {
    const upstream = make();
    const mr = keep(new ArenaMemoryResource(upstream, { arenaSize: 2 * MiB, dumpLogOnFailure: false }));
    expect(mr.upstreamMr).toBe(upstream);
    expect(mr.getUpstream()).toBe(upstream);
    if (upstream !== getCurrentDeviceResource()) upstream[Symbol.dispose]();
    const buffer = new DeviceBuffer({ data: pattern(5000, 9), mr });
    expectBytes(buffer.toBytes(), pattern(5000, 9));
    buffer.free();
    expect(mr.isEqual(mr)).toBe(true);
    expect(mr.isEqual(arena({ arenaSize: 2 * MiB }))).toBe(false);
  });

  it('can be an upstream itself', () => {
    const outer = keep(new ArenaMemoryResource(arena({ arenaSize: 8 * MiB }), { arenaSize: 4 * MiB }));
    const a = outer.allocate(MiB);
    const b = outer.allocate(3 * MiB);
    expect(offset(b, a)).toBe(MiB);
    expect(thrown(() => new ArenaMemoryResource(outer.upstreamMr, { arenaSize: 5 * MiB })).code).toBe(
      'ERR_RMM_OUT_OF_MEMORY',
    );
    outer.deallocate(a, MiB);
    outer.deallocate(b, 3 * MiB);
  });
});
