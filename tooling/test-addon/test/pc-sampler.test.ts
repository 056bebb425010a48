// The sampling profiler behind tooling/scripts/profile-pairs.mjs: it samples the calling thread,
// and every sample lies in a mapping it writes, most of them in this loop's own code.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { pcSamplerStart, pcSamplerStop } from '../index.js';

it.runIf(process.platform === 'linux' && process.arch === 'x64')(
  'samples the calling thread into mappings it writes',
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'rmmjs-sampler-'));
    try {
      const file = join(dir, 'samples');
      pcSamplerStart(200);
      expect(() => pcSamplerStart(200)).toThrow(/already sampling/);
      const started = Date.now();
      while (Date.now() < started + 200);
      const count = pcSamplerStop(file);
      expect(() => pcSamplerStop(file)).toThrow(/not sampling/);
      // 200 ms at one sample per 200 us is about 1000 on an idle core. The timer counts wall time, and
      // while the thread waits for a core its expirations merge into one signal: on a machine loaded
      // by the other test processes the count falls with the thread's share of a core (about 130
      // per 100 ms with 7 busy threads on 2 cores).
      expect(count).toBeGreaterThan(10);
      const lines = readFileSync(file, 'utf8').trim().split('\n');
      const maps = lines
        .filter((l) => l.startsWith('map '))
        .map((l) =>
          l
            .split(/\s+/)[2]
            .split('-')
            .map((x) => BigInt(`0x${x}`)),
        );
      const pcs = lines.filter((l) => l.startsWith('pc ')).map((l) => BigInt(`0x${l.slice(3)}`));
      expect(pcs.length).toBe(count);
      expect(pcs.every((pc) => maps.some(([start, end]) => pc >= start && pc < end))).toBe(true);
      expect(() => pcSamplerStart(5)).toThrow(/10 to 1000000/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
