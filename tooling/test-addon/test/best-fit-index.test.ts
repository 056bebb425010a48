// Core's BestFitIndex (the free-block size index of the pool and the arena) must answer as an
// ordered set of (size, start) does: the smallest block that fits, the lowest address among equal
// sizes, whatever mix of inserts, removals, re-keys and moves came before.
import { expect, it } from 'vitest';
import { bestFitIndexCheck } from '../index.js';

it.each([
  ['256-byte multiples below 256 KiB (the exact classes)', 'steps'],
  ['any size up to 4 MiB (the classes of 64 per power of two)', 'any'],
  ['three sizes shared by many blocks', 'equal'],
  ['class edges and powers of two up to SIZE_MAX', 'edges'],
] as const)('%s: answers as an ordered set over 200,000 operations', (_, sizes) => {
  for (const seed of [1, 2, 3]) {
    const result = bestFitIndexCheck({ seed, steps: 200_000, sizes });
    expect(result.first).toBe('');
    expect(result.mismatches).toBe(0);
    expect(result.operations).toBe(200_000);
    expect(result.records).toBeGreaterThan(50_000);
  }
});
