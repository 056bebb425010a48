// Garbage collection is the fallback, and dropping references in any order is safe.
import { describe, expect, it } from 'vitest';
import { probePath } from './probe.js';
import { runNode } from './run-node.js';

describe('lifetime', () => {
  it('unreachable buffers are freed by the collector', () => {
    const run = runNode(
      `const { createRequire } = await import('node:module');
       const probe = createRequire(import.meta.url)(${JSON.stringify(probePath)});
       const start = probe.externalMemory();
       for (let i = 0; i < 50; i++) new core.DeviceBuffer({ size: 1 << 20 });
       const grown = probe.externalMemory() - start;
       for (let i = 0; i < 5; i++) { globalThis.gc(); await new Promise((r) => setImmediate(r)); }
       const left = probe.externalMemory() - start;
       // Other allocations move the total a little: compare in whole MiB.
       console.log(Math.round(grown / (1 << 20)) === 50, Math.abs(left) < (1 << 20));`,
      {},
      ['--expose-gc'],
    );
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('true true');
  });

  it('resources, streams and buffers can be dropped in any order', () => {
    const run = runNode(
      `const stream = new core.Stream();
       const mr = core.getCurrentDeviceResource();
       const a = new core.DeviceBuffer({ data: new Uint8Array([1, 2, 3]), stream, mr });
       const b = a.copy();
       stream[Symbol.dispose]();
       mr[Symbol.dispose]();
       a.free();
       console.log([...b.toBytes()].join(','));
       b.free();
       for (let i = 0; i < 3; i++) new core.DeviceBuffer({ size: 10, stream: new core.Stream() });
       globalThis.gc();
       await new Promise((r) => setImmediate(r));
       console.log('ok');`,
      {},
      ['--expose-gc'],
    );
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('1,2,3\nok');
  });
});
