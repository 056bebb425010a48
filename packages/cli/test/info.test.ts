// `rmmjs info`: the driver, the devices and the resource stack, as text and as JSON.
import { describe, expect, it } from 'vitest';
import { cuda, getCurrentDeviceResource, setCurrentDeviceResource } from '@rmmjs/core';
import { PoolMemoryResource } from '@rmmjs/pool';
import { StatisticsResourceAdaptor } from '@rmmjs/statistics';
import { backend, MiB, onFake, onGpu, onHost, withCuda } from '@rmmjs/test-helpers';
import { collectInfo, formatInfo, type MachineInfo } from '@rmmjs/cli';
import { lines, rmmjs } from './run-cli.js';

const versionLine = /^rmmjs \d+\.\d+\.\d+ \(@rmmjs\/core \d+\.\d+\.\d+, Node\.js v\d+\.\d+\.\d+\)$/;

describe(`rmmjs info (${backend()})`, () => {
  it('prints the mode, the memory and the resource stack', () => {
    const run = rmmjs(['info']);
    expect(run.status).toBe(0);
    expect(run.stderr).toBe('');
    const out = lines(run.stdout);
    expect(out[0]).toMatch(versionLine);
    expect(out.slice(-2)).toEqual([
      'current device: 0',
      `resource stack: ${withCuda() ? 'CudaMemoryResource' : 'SystemMemoryResource'}`,
    ]);
    if (onHost()) {
      expect(out[1]).toBe(
        'mode: host (CUDA is disabled by RMMJS_DISABLE_CUDA; unset it to use the GPU); device memory is host memory',
      );
      expect(out[2]).toMatch(/^host memory: \d+(\.\d)? [KMGT]iB free of \d+(\.\d)? [KMGT]iB$/);
      expect(out).toHaveLength(5);
    }
    if (onFake()) {
      expect(out.slice(1, -2)).toEqual([
        `mode: CUDA 13.0 driver (${process.env.RMMJS_CUDA_LIBRARY}), 2 devices`,
        ...[0, 1].flatMap((id) => [
          `device ${id}: rmmjs fake CUDA device ${id}, compute capability 9.0`,
          '  memory: 256 MiB free of 256 MiB',
          '  pageable memory access: no',
          '  memory pools (CudaAsyncMemoryResource): yes',
        ]),
      ]);
    }
    if (onGpu()) {
      expect(out[1]).toMatch(/^mode: CUDA \d+\.\d+ driver \(.+\), \d+ devices?$/);
      expect(out[2]).toMatch(/^device 0: .+, compute capability \d+\.\d+$/);
    }
  });

  it.runIf(onFake())('reads each attribute from the driver (pageable memory access on the fake driver)', () => {
    const run = rmmjs(['info'], { env: { RMMJS_FAKE_CUDA_PAGEABLE: '1', RMMJS_FAKE_CUDA_DEVICES: '1' } });
    expect(run.status).toBe(0);
    expect(lines(run.stdout).slice(1, 6)).toEqual([
      `mode: CUDA 13.0 driver (${process.env.RMMJS_CUDA_LIBRARY}), 1 device`,
      'device 0: rmmjs fake CUDA device 0, compute capability 9.0',
      '  memory: 256 MiB free of 256 MiB',
      '  pageable memory access: yes',
      '  memory pools (CudaAsyncMemoryResource): yes',
    ]);
  });

  it('--json prints the same as JSON', () => {
    const run = rmmjs(['info', '--json']);
    expect(run.status).toBe(0);
    const info = JSON.parse(run.stdout) as MachineInfo;
    expect(info.mode).toBe(withCuda() ? 'cuda' : 'host');
    expect(info.currentDevice).toBe(0);
    expect(info.resourceStack).toEqual([withCuda() ? 'CudaMemoryResource' : 'SystemMemoryResource']);
    expect(info.devices).toHaveLength(onHost() ? 0 : cuda.getDeviceCount());
    expect(info.hostModeReason === null).toBe(withCuda());
    expect(info.driverVersion).toBe(withCuda() ? cuda.driverVersion() : null);
    if (onHost()) expect(info.hostMemory!.total).toBeGreaterThanOrEqual(info.hostMemory!.free);
    if (onHost()) expect(info.hostMemory!.free).toBeGreaterThan(0);
    if (onFake()) {
      expect(info.devices[1]).toEqual({
        id: 1,
        name: 'rmmjs fake CUDA device 1',
        computeCapability: '9.0',
        memory: { free: 256 * MiB, total: 256 * MiB },
        pageableMemoryAccess: false,
        memoryPools: true,
      });
    }
    // Text and JSON say the same, bar the free memory that moves between the two runs.
    const text = lines(rmmjs(['info']).stdout).filter((line) => !line.includes('free of'));
    expect(formatInfo(info).filter((line) => !line.includes('free of'))).toEqual(text);
  });

  it('names the current resource stack, top first, and leaves the current device as it was', () => {
    const previous = getCurrentDeviceResource();
    const pool = new PoolMemoryResource(previous, { initialPoolSize: 4 * MiB });
    const stats = new StatisticsResourceAdaptor(pool);
    setCurrentDeviceResource(stats);
    try {
      const info = collectInfo();
      expect(info.resourceStack).toEqual([
        'StatisticsResourceAdaptor',
        'PoolMemoryResource',
        withCuda() ? 'CudaMemoryResource' : 'SystemMemoryResource',
      ]);
      expect(formatInfo(info).at(-1)).toBe(`resource stack: ${info.resourceStack.join(' > ')}`);
      if (withCuda() && cuda.getDeviceCount() > 1) {
        cuda.setDevice(1);
        expect(collectInfo().currentDevice).toBe(1);
        expect(cuda.getDevice()).toBe(1);
        cuda.setDevice(0);
      }
    } finally {
      setCurrentDeviceResource(previous);
      stats[Symbol.dispose]();
      pool[Symbol.dispose]();
    }
  });

  it.runIf(!onGpu())('a driver library that cannot be loaded is an error (exit 1), never host mode', () => {
    const run = rmmjs(['info'], {
      env: { RMMJS_DISABLE_CUDA: undefined, RMMJS_CUDA_LIBRARY: '/nonexistent/libcuda.so.1' },
    });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^rmmjs info: .*\/nonexistent\/libcuda\.so\.1.*\(ERR_CUDA_DRIVER_NOT_FOUND\)\n$/s);
  });
});
