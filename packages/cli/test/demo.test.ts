// `rmmjs demo`: the newcomer's first run, on every backend.
import { describe, expect, it } from 'vitest';
import { getCurrentDeviceResource } from '@rmmjs/core';
import { backend, MiB, onHost, withCuda } from '@rmmjs/test-helpers';
import { runDemo } from '@rmmjs/cli';
import { lines, rmmjs } from './run-cli.js';

// 100 buffers of i KiB (5,171,200 bytes); every second one resized to twice its size (2,550 KiB
// more, peaking at 7,700 KiB while the last one's old and new memory are both held); a 16 MiB
// buffer and its copy on top of 7,600 KiB.
const PEAK = 7600 * 1024 + 32 * MiB;
const TOTAL = 5050 * 1024 + 5100 * 1024 + 32 * MiB;

describe(`rmmjs demo (${backend()})`, () => {
  it('prints the stack, the workload, the statistics and the profiler report', () => {
    const run = rmmjs(['demo']);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const out = lines(run.stdout);
    expect(out[0]).toMatch(
      onHost()
        ? /^rmmjs demo in host mode \(CUDA is disabled by RMMJS_DISABLE_CUDA; unset it to use the GPU\): device memory is host memory$/
        : /^rmmjs demo on .+ \(device 0 of \d+, CUDA \d+\.\d+\)$/,
    );
    const base = withCuda() ? 'CudaMemoryResource' : 'SystemMemoryResource';
    expect(out.slice(1, 4)).toEqual([
      `resource stack: StatisticsResourceAdaptor > PoolMemoryResource > ${base} (pool of 64 MiB)`,
      'uploaded 100 buffers of 1 KiB..100 KiB (4.9 MiB)',
      'resized every second buffer to twice its size (contents kept: yes)',
    ]);
    expect(out[4]).toMatch(
      /^round trip of 16 MiB host -> device -> device -> host with async copies in \d+\.\d ms: bytes equal$/,
    );
    expect(out.slice(5, 12)).toEqual([
      '',
      'statistics (bytes as requested, counted by StatisticsResourceAdaptor):',
      '  current           0  bytes in    0  allocations',
      '  peak     41,336,832  bytes in  102  allocations',
      '  total    43,948,032  bytes in  152  allocations',
      'pool size: 64 MiB',
      '',
    ]);
    expect(out.slice(12, 14)).toEqual(['Memory Profiling', '================']);
    expect(out.slice(-7)).toEqual([
      'ncalls     memory_peak    memory_total  filename:lineno(function)',
      '     1      33,554,432      33,554,432  round trip 16 MiB',
      '     1       5,171,200       5,171,200  upload 100 buffers',
      '     1       2,713,600       5,222,400  resize 50 buffers',
      '     1               0               0  free 100 buffers',
      '',
      'Next: rmmjs info, rmmjs replay <log.csv>, rmmjs plot <log.csv> -o memory.svg (rmmjs --help)',
    ]);
  });

  it('runDemo returns the counters and the records, and puts the current resource back', async () => {
    const before = getCurrentDeviceResource();
    const printed: string[] = [];
    const result = await runDemo((line) => printed.push(line));
    expect(getCurrentDeviceResource()).toBe(before);
    expect(result.resourceStack).toEqual(['StatisticsResourceAdaptor', 'PoolMemoryResource', before.constructor.name]);
    const { currentBytes, currentCount, peakBytes, peakCount, totalBytes, totalCount } = result.statistics;
    expect({ currentBytes, currentCount, peakBytes, peakCount, totalBytes, totalCount }).toEqual({
      currentBytes: 0,
      currentCount: 0,
      peakBytes: PEAK,
      peakCount: 102,
      totalBytes: TOTAL,
      totalCount: 152,
    });
    expect(result.poolSize).toBe(64 * MiB);
    expect(
      Object.fromEntries(
        [...result.records.records].map(([name, r]) => [name, [r.numCalls, r.memoryPeak, r.memoryTotal]]),
      ),
    ).toEqual({
      'upload 100 buffers': [1, 5050 * 1024, 5050 * 1024],
      'resize 50 buffers': [1, 2650 * 1024, 5100 * 1024],
      'round trip 16 MiB': [1, 32 * MiB, 32 * MiB],
      'free 100 buffers': [1, 0, 0],
    });
    expect(printed.at(-1)).toBe('     1               0               0  free 100 buffers');
  });
});
