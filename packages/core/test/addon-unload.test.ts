// Node unloads an addon's library when the last environment that loaded it ends. A resource made
// by an addon that only a worker loaded lives on after that worker exits (here as the current
// device resource), so its code must stay loaded: the main thread, which never loaded the addon,
// allocates through it, then drops the last reference (its destroy runs) and exits normally.
import { runInProcess } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';

const addonUrl = new URL('../build/test-addons/', import.meta.url).href;
const workerUrl = new URL('./workers/sets-counting-adaptor.js', import.meta.url).href;

describe('a resource whose addon only an exited worker loaded', () => {
  it('keeps working on the main thread, and its last release there ends cleanly', () => {
    const run = runInProcess(
      `import { readFileSync } from 'node:fs';
       import { Worker } from 'node:worker_threads';
       const previous = core.getCurrentDeviceResource();
       // Not this process's --input-type, which a worker started from a file refuses.
       const worker = new Worker(new URL(${JSON.stringify(workerUrl)}), { workerData: ${JSON.stringify(addonUrl)}, execArgv: [] });
       const exitCode = await new Promise((resolve) => worker.once('exit', resolve));
       const mapped = () => readFileSync('/proc/self/maps', 'utf8').includes('rmmjs_counting_adaptor.node');
       const mr = core.getCurrentDeviceResource();
       const info = coreInternal.native.resourceInfo(coreAddon.resourceHandle(mr, 'mr'));
       const buffer = new core.DeviceBuffer({ size: 1000 });
       buffer.copyFromHost(new Uint8Array(1000).fill(7));
       const back = buffer.toBytes();
       buffer.free();
       core.setCurrentDeviceResource(previous);
       mr[Symbol.dispose]();
       console.log(JSON.stringify({ exitCode, typeName: info.typeName, mapped: mapped(), sevens: back.every((b) => b === 7) }));`,
      { modules: { coreAddon: '@rmmjs/core/addon', coreInternal: '@rmmjs/core/internal' } },
    );
    expect({ status: run.status, signal: run.signal, stderr: run.stderr }).toEqual({
      status: 0,
      signal: null,
      stderr: '',
    });
    expect(JSON.parse(run.stdout)).toEqual({
      exitCode: 0,
      typeName: 'CountingResourceAdaptor',
      mapped: true,
      sevens: true,
    });
  });
});
