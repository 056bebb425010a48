import { totalmem } from 'node:os';
import {
  availableDeviceMemory,
  DeviceBuffer,
  getCurrentDeviceResource,
  getCurrentDeviceResourceType,
  OutOfMemoryError,
  RMMError,
  setCurrentDeviceResource,
} from '@rmmjs/core';
import { PoolMemoryResource } from '@rmmjs/pool';
import { expectBytes, onGpu, pattern, random, thrown, withCuda } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';
import { upstreamCases } from './upstreams.js';

const KiB = 1024;
const MiB = 1024 * KiB;
const alignUp = (n: number) => Math.ceil(n / 256) * 256;

describe.each(upstreamCases)('PoolMemoryResource over $name', ({ make }) => {
  it('takes initialPoolSize from upstream and hands out 256-byte aligned pieces of it', () => {
    using pool = new PoolMemoryResource(make(), { initialPoolSize: MiB });
    expect(pool.poolSize()).toBe(MiB);
    const a = pool.allocate(1000);
    const b = pool.allocate(1);
    expect(a % 256n).toBe(0n);
    expect(b).toBe(a + 1024n); // the front of what was left
    expect(pool.allocate(0)).toBe(0n);
    pool.deallocate(a, 1000);
    pool.deallocate(b, 1);
    // Everything coalesced back into one block: the whole pool fits without growing.
    const all = pool.allocate(MiB);
    expect(all).toBe(a);
    expect(pool.poolSize()).toBe(MiB);
    pool.deallocate(all, MiB);
  });

  it('reuses the best fitting free block', () => {
    using pool = new PoolMemoryResource(make(), { initialPoolSize: 64 * KiB });
    const sizes = [4 * KiB, 1 * KiB, 2 * KiB];
    const blocks = sizes.map((size) => {
      const ptr = pool.allocate(size);
      pool.allocate(256); // keeps the freed blocks apart
      return ptr;
    });
    blocks.forEach((ptr, i) => pool.deallocate(ptr, sizes[i]));
    expect(pool.allocate(1500)).toBe(blocks[2]);
    expect(pool.allocate(1000)).toBe(blocks[1]);
    expect(pool.allocate(3000)).toBe(blocks[0]);
    expect(pool.poolSize()).toBe(64 * KiB);
  });

  it('coalesces a freed block with free neighbours on both sides', () => {
    using pool = new PoolMemoryResource(make(), { initialPoolSize: 64 * KiB });
    const [a, b, c] = [pool.allocate(KiB), pool.allocate(KiB), pool.allocate(KiB)];
    pool.allocate(KiB);
    pool.deallocate(a, KiB);
    pool.deallocate(c, KiB);
    pool.deallocate(b, KiB);
    expect(pool.allocate(3 * KiB)).toBe(a);
  });

  it('grows by the larger of the request and the pool size, and never merges upstream blocks', () => {
    using pool = new PoolMemoryResource(make(), { initialPoolSize: 0 });
    expect(pool.poolSize()).toBe(0);
    const a = pool.allocate(1000);
    expect(pool.poolSize()).toBe(1024);
    const b = pool.allocate(4000);
    expect(pool.poolSize()).toBe(5120);
    const c = pool.allocate(500);
    expect(pool.poolSize()).toBe(10240);
    pool.deallocate(a, 1000);
    pool.deallocate(b, 4000);
    pool.deallocate(c, 500);
    // 10 KiB is free, but in three upstream blocks of 1, 4 and 5 KiB: 8 KiB needs a fourth.
    pool.allocate(8 * KiB);
    expect(pool.poolSize()).toBe(20480);
    // The 5 KiB block, whole again, serves 5 KiB without growth.
    pool.allocate(5 * KiB);
    expect(pool.poolSize()).toBe(20480);
  });

  it('with a maximum, grows by the larger of the request and half the room left', () => {
    using pool = new PoolMemoryResource(make(), { initialPoolSize: 0, maximumPoolSize: MiB });
    pool.allocate(1000);
    expect(pool.poolSize()).toBe(512 * KiB);
    const error = thrown(() => pool.allocate(600 * KiB));
    expect(error).toBeInstanceOf(OutOfMemoryError);
    expect(error.code).toBe('ERR_RMM_OUT_OF_MEMORY');
    expect(error.message).toBe(
      'Maximum pool size exceeded (failed to allocate 600.000000 KiB): Not enough room to grow, ' +
        'current/max/try size = 512.000000 KiB, 1024.000000 KiB, 600.000000 KiB',
    );
    expect(pool.poolSize()).toBe(512 * KiB);
    pool.allocate(300 * KiB); // still fits in the first block
    expect(pool.poolSize()).toBe(512 * KiB);
    pool.allocate(400 * KiB);
    expect(pool.poolSize()).toBe(912 * KiB);
  });

  it('rapidsai/rmm#1957: a wholly free upstream block is given back to make room under the maximum', () => {
    using pool = new PoolMemoryResource(make(), { initialPoolSize: 256, maximumPoolSize: 1024 });
    const ptr = pool.allocate(1024);
    expect(pool.poolSize()).toBe(1024);
    pool.deallocate(ptr, 1024);

    using busy = new PoolMemoryResource(make(), { initialPoolSize: 256, maximumPoolSize: 1024 });
    busy.allocate(256);
    const error = thrown(() => busy.allocate(1024));
    expect(error).toBeInstanceOf(OutOfMemoryError);
    expect(error.message).toBe(
      'Maximum pool size exceeded (failed to allocate 1024.000000 B): Not enough room to grow, ' +
        'current/max/try size = 256.000000 B, 1024.000000 B, 1024.000000 B',
    );
    expect(busy.poolSize()).toBe(256);
  });

  it('gives back several wholly free upstream blocks when one is not enough', () => {
    using pool = new PoolMemoryResource(make(), { initialPoolSize: 0, maximumPoolSize: 4096 });
    const a = pool.allocate(256); // a block of 2048 (half the room)
    const b = pool.allocate(2048); // a second block of 2048
    expect(pool.poolSize()).toBe(4096);
    pool.deallocate(a, 256);
    pool.deallocate(b, 2048);
    const whole = pool.allocate(4096); // both blocks go back, one block of 4096 comes
    expect(pool.poolSize()).toBe(4096);
    pool.deallocate(whole, 4096);
    expect(pool.allocate(4096)).toBe(whole);
  });

  it('DeviceBuffers made through it keep their bytes', () => {
    using pool = new PoolMemoryResource(make(), { initialPoolSize: MiB });
    const previous = setCurrentDeviceResource(pool);
    try {
      expect(getCurrentDeviceResource()).toBe(pool);
      expect(getCurrentDeviceResourceType()).toBe(PoolMemoryResource);
      const buffers = [1, 255, 4096, 100_000].map((size, seed) => new DeviceBuffer({ data: pattern(size, seed) }));
      buffers.forEach((buffer, seed) => expectBytes(buffer.toBytes(), pattern(buffer.size, seed)));
      for (const buffer of buffers) buffer.free();
    } finally {
      setCurrentDeviceResource(previous);
    }
  });

  it('random workload: live allocations never overlap and keep their bytes', () => {
    using pool = new PoolMemoryResource(make(), { initialPoolSize: 256 * KiB, maximumPoolSize: 8 * MiB });
    const next = random(7);
    const live: { buffer: DeviceBuffer; seed: number }[] = [];
    const verifyAndFree = (at: number) => {
      const { buffer, seed } = live[at];
      expectBytes(buffer.toBytes(), pattern(buffer.size, seed));
      buffer.free();
      live[at] = live[live.length - 1];
      live.pop();
    };
    for (let step = 0; step < 1500; step++) {
      if (live.length > 0 && (live.length >= 64 || next() < 0.45)) {
        verifyAndFree(Math.floor(next() * live.length));
        continue;
      }
      const size = 1 + Math.floor(next() ** 3 * 64 * KiB);
      const buffer = new DeviceBuffer({ data: pattern(size, step), mr: pool });
      const start = buffer.ptr;
      const end = start + BigInt(alignUp(size));
      for (const other of live) {
        const otherEnd = other.buffer.ptr + BigInt(alignUp(other.buffer.size));
        expect(start < otherEnd && other.buffer.ptr < end, 'overlapping allocations').toBe(false);
      }
      live.push({ buffer, seed: step });
    }
    while (live.length > 0) verifyAndFree(live.length - 1);
    // All free and coalesced again: the initial block serves 256 KiB without growth.
    const size = pool.poolSize();
    pool.deallocate(pool.allocate(256 * KiB), 256 * KiB);
    expect(pool.poolSize()).toBe(size);
  });

  it('keeps its upstream alive and exposes it', () => {
    const upstream = make();
    const pool = new PoolMemoryResource(upstream, { initialPoolSize: 4 * KiB });
    expect(pool.upstreamMr).toBe(upstream);
    expect(pool.getUpstream()).toBe(upstream);
    upstream[Symbol.dispose]();
    const buffer = new DeviceBuffer({ data: pattern(3000, 3), mr: pool });
    expectBytes(buffer.toBytes(), pattern(3000, 3));
    buffer.free();
    expect(pool.upstreamMr.constructor.name).toBe(upstream.constructor.name);
    pool[Symbol.dispose]();
    expect(thrown(() => pool.poolSize()).code).toBe('ERR_RMM_DISPOSED');
  });
});

describe('PoolMemoryResource configuration', () => {
  const base = () => getCurrentDeviceResource();

  it.each([
    [
      'initial not a multiple of 256 (RMM NonAlignedPoolSize)',
      1000031,
      1000192,
      'Error, Initial pool size required to be a multiple of 256 bytes',
    ],
    [
      'maximum not a multiple of 256 (RMM NonAlignedPoolSize)',
      1000192,
      1000200,
      'Error, Maximum pool size required to be a multiple of 256 bytes',
    ],
    [
      'maximum less than initial (RMM ThrowMaxLessThanInitial)',
      1024,
      256,
      'Initial pool size exceeds the maximum pool size!',
    ],
    [
      'maximum not a multiple of 256, default initial',
      undefined,
      1000,
      'Error, Maximum pool size required to be a multiple of 256 bytes',
    ],
  ])('%s is an RMMError', (_, initialPoolSize, maximumPoolSize, message) => {
    const error = thrown(() => new PoolMemoryResource(base(), { initialPoolSize, maximumPoolSize }));
    expect(error).toBeInstanceOf(RMMError);
    expect(error.code).toBe('ERR_RMM_LOGIC');
    expect(error.message).toBe(message);
  });

  it('no initialPoolSize: the default initial size is capped by maximumPoolSize', () => {
    using pool = new PoolMemoryResource(base(), { maximumPoolSize: MiB, initialPoolSize: undefined });
    expect(pool.poolSize()).toBe(MiB);
    expect(thrown(() => pool.allocate(MiB + 256)).code).toBe('ERR_RMM_OUT_OF_MEMORY');
  });

  it('RMM InitialAndMaxPoolSizeEqual: initial = maximum = 1000192 serves 1000 bytes', () => {
    using pool = new PoolMemoryResource(base(), { initialPoolSize: 1000192, maximumPoolSize: 1000192 });
    const ptr = pool.allocate(1000);
    expect(ptr).not.toBe(0n);
    expect(pool.poolSize()).toBe(1000192);
    pool.deallocate(ptr, 1000);
  });

  it('sizes may be byte strings', () => {
    using pool = new PoolMemoryResource(base(), { initialPoolSize: '1 MiB', maximumPoolSize: '2mib' });
    expect(pool.poolSize()).toBe(MiB);
    pool.allocate(MiB);
    expect(pool.poolSize()).toBe(MiB);
    pool.allocate(1);
    expect(pool.poolSize()).toBe(MiB + 512 * KiB);
    expect(thrown(() => pool.allocate(MiB)).message).toMatch(
      /^Maximum pool size exceeded \(failed to allocate 1024\.000000 KiB\)/,
    );
  });

  it('without initialPoolSize but with a maximum, starts at the maximum when that is smaller', () => {
    using pool = new PoolMemoryResource(base(), { maximumPoolSize: '1 MiB' });
    expect(pool.poolSize()).toBe(MiB);
  });

  it.runIf(!onGpu())('without initialPoolSize, starts with half the free memory (host mode: 256 MiB)', () => {
    const [free] = availableDeviceMemory();
    using pool = new PoolMemoryResource(base());
    const expected = withCuda()
      ? Math.floor(free / 2 / 256) * 256
      : Math.min(256 * MiB, Math.floor(totalmem() / 2 / 256) * 256);
    expect(pool.poolSize()).toBe(expected);
  });

  it('bad arguments', () => {
    const invalid: [unknown, unknown, string][] = [
      [{}, undefined, 'ERR_INVALID_ARG_TYPE'],
      [null, undefined, 'ERR_INVALID_ARG_TYPE'],
      [base(), 1024, 'ERR_INVALID_ARG_TYPE'],
      [base(), null, 'ERR_INVALID_ARG_TYPE'],
      [base(), { initialPoolSize: -256 }, 'ERR_OUT_OF_RANGE'],
      [base(), { initialPoolSize: 256.5 }, 'ERR_OUT_OF_RANGE'],
      [base(), { initialPoolSize: Number.NaN }, 'ERR_OUT_OF_RANGE'],
      [base(), { initialPoolSize: 2 ** 53 }, 'ERR_OUT_OF_RANGE'],
      [base(), { maximumPoolSize: Infinity }, 'ERR_OUT_OF_RANGE'],
      [base(), { initialPoolSize: 256n }, 'ERR_INVALID_ARG_TYPE'],
      [base(), { maximumPoolSize: null }, 'ERR_INVALID_ARG_TYPE'],
      [base(), { initialPoolSize: '1k' }, 'ERR_INVALID_ARG_VALUE'],
      [base(), { maximumPoolSize: 'lots' }, 'ERR_INVALID_ARG_VALUE'],
    ];
    for (const [upstream, options, code] of invalid) {
      const error = thrown(() => new PoolMemoryResource(upstream as never, options as never));
      expect(
        error.code,
        `${String(upstream)} ${JSON.stringify(options, (_, v) => (typeof v === 'bigint' ? `${v}n` : v))}`,
      ).toBe(code);
    }
    expect(thrown(() => new PoolMemoryResource({} as never)).message).toContain('"upstream"');
    expect(thrown(() => new PoolMemoryResource(base(), { initialPoolSize: -1 })).message).toContain(
      'options.initialPoolSize',
    );
    expect(thrown(() => new PoolMemoryResource(base(), { maximumPoolSize: '1k' })).message).toContain(
      'Could not parse',
    );
  });

  it('deallocating memory the pool did not hand out, or freeing twice, is an RMMError (logic error) and changes nothing', () => {
    using pool = new PoolMemoryResource(base(), { initialPoolSize: 64 * KiB });
    using other = new PoolMemoryResource(base(), { initialPoolSize: 64 * KiB });
    const a = pool.allocate(KiB);
    const b = pool.allocate(KiB);
    const foreign = other.allocate(KiB);
    for (const [ptr, size] of [
      [foreign, KiB],
      [a + 128n, 256],
      [b, 64 * KiB],
    ] as const) {
      const error = thrown(() => pool.deallocate(ptr, size));
      expect(error).toBeInstanceOf(RMMError);
      expect(error.code).toBe('ERR_RMM_LOGIC');
      expect(error.message).toBe(
        `PoolMemoryResource: cannot deallocate 0x${ptr.toString(16)} (${size} bytes): not memory this pool handed out`,
      );
    }
    pool.deallocate(a, KiB);
    const twice = thrown(() => pool.deallocate(a, KiB));
    expect(twice).toBeInstanceOf(RMMError);
    expect(twice.code).toBe('ERR_RMM_LOGIC');
    expect(twice.message).toBe(
      `PoolMemoryResource: cannot deallocate 0x${a.toString(16)} (1024 bytes): the range is already free (freed twice, or the wrong size)`,
    );
    // a is handed out once, then the pool moves on.
    expect(pool.allocate(KiB)).toBe(a);
    expect(pool.allocate(KiB)).toBe(b + 1024n);
  });

  // Found by the fuzzer (tooling/fuzz): a pointer inside a live block (or a live block with another
  // size) was taken back, and the pool then handed out memory that was still in use.
  it('a pointer inside a block, or a block with another size, is refused and never handed out twice', () => {
    using pool = new PoolMemoryResource(base(), { initialPoolSize: 64 * KiB });
    const a = pool.allocate(512);
    const b = pool.allocate(KiB);
    for (const [ptr, size, why] of [
      [a + 256n, 256, 'not memory this pool handed out'],
      [b + 512n, 512, 'not memory this pool handed out'],
      [b, 512, 'the range is already free (freed twice, or the wrong size)'],
      [b, 2 * KiB, 'the range is already free (freed twice, or the wrong size)'],
    ] as const) {
      const error = thrown(() => pool.deallocate(ptr, size));
      expect(error).toBeInstanceOf(RMMError);
      expect(error.code).toBe('ERR_RMM_LOGIC');
      expect(error.message).toBe(`PoolMemoryResource: cannot deallocate 0x${ptr.toString(16)} (${size} bytes): ${why}`);
    }
    // Nothing of a or b is handed out again while they are live.
    const others = Array.from({ length: 8 }, () => pool.allocate(256));
    for (const ptr of others) {
      expect(ptr >= a + 512n && !(ptr >= b && ptr < b + 1024n)).toBe(true);
    }
    for (const ptr of others) pool.deallocate(ptr, 256);
    pool.deallocate(b, KiB);
    pool.deallocate(a, 512);
  });
});
