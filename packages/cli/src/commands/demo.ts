import { cuda, DeviceBuffer, getCurrentDeviceResource, setCurrentDeviceResource } from '@rmmjs/core';
import { PoolMemoryResource } from '@rmmjs/pool';
import { ProfilerRecords, profile, StatisticsResourceAdaptor, type Statistics } from '@rmmjs/statistics';
import { writeLines, type Command } from '../command.js';
import { formatBytes, formatCount, formatTable } from '../format.js';
import { resourceStack } from '../resource-stack.js';
import { validateFunction } from '../validate.js';
import { formatDriverVersion } from './info.js';

const KiB = 1024;
const MiB = 1024 * KiB;
const BUFFERS = 100;
const ROUND_TRIP_BYTES = 16 * MiB;

/** Bytes that differ from one buffer to the next (so a copy from the wrong place shows). */
function hostBytes(size: number, seed: number): Uint8Array {
  const bytes = new Uint8Array(size);
  const period = Math.min(size, 256);
  for (let i = 0; i < period; i++) bytes[i] = (i * 31 + seed * 7) & 0xff;
  for (let filled = period; filled < size; filled *= 2) bytes.copyWithin(filled, 0, Math.min(filled, size - filled));
  return bytes;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** What `runDemo` measured. */
export interface DemoResult {
  /** The statistics adaptor's counters after the workload. */
  statistics: Statistics;
  /** The pool's size in bytes after the workload (it starts at 64 MiB). */
  poolSize: number;
  /** The profiler's records of the four steps: upload, resize, round trip, free. */
  records: ProfilerRecords;
  /**
   * The class names of the demo's resource stack, top first: the statistics adaptor, the pool, then
   * the device resource and its upstreams.
   */
  resourceStack: string[];
}

/**
 * The demo: `Statistics(Pool(current device resource))` as the current resource, a short workload
 * through `DeviceBuffer` (100 buffers of 1..100 KiB uploaded, half of them resized, a 16 MiB round
 * trip host -> device -> device -> host with async copies), each step profiled; prints as it goes,
 * then the statistics and the profiler report. Puts the previous resource back.
 */
export async function runDemo(print: (line: string) => void = console.log): Promise<DemoResult> {
  validateFunction(print, 'print');
  print(
    cuda.isAvailable()
      ? `rmmjs demo on ${cuda.deviceName()} (device ${cuda.getDevice()} of ${cuda.getDeviceCount()}, CUDA ${formatDriverVersion(cuda.driverVersion())})`
      : `rmmjs demo in host mode (${cuda.hostModeReason()?.replace(/\.$/, '')}): device memory is host memory`,
  );
  const pool = new PoolMemoryResource(getCurrentDeviceResource(), { initialPoolSize: 64 * MiB });
  const stats = new StatisticsResourceAdaptor(pool);
  const previous = setCurrentDeviceResource(stats);
  const records = new ProfilerRecords();
  const buffers: DeviceBuffer[] = [];
  try {
    const stack = resourceStack(stats);
    print(`resource stack: ${stack.join(' > ')} (pool of ${formatBytes(pool.poolSize())})`);

    profile(
      'upload 100 buffers',
      () => {
        for (let i = 1; i <= BUFFERS; i++) buffers.push(DeviceBuffer.toDevice(hostBytes(i * KiB, i)));
      },
      { records },
    );
    print(`uploaded ${BUFFERS} buffers of 1 KiB..100 KiB (${formatBytes(buffers.reduce((n, b) => n + b.size, 0))})`);

    profile(
      'resize 50 buffers',
      () => {
        for (const [i, buffer] of buffers.entries()) if (i % 2 === 1) buffer.resize(buffer.size * 2);
      },
      { records },
    );
    const resized = buffers[1];
    const kept = sameBytes(resized.toBytes().subarray(0, 2 * KiB), hostBytes(2 * KiB, 2));
    print(`resized every second buffer to twice its size (contents kept: ${kept ? 'yes' : 'NO'})`);

    const source = hostBytes(ROUND_TRIP_BYTES, 42);
    const started = process.hrtime.bigint();
    const back = await profile(
      'round trip 16 MiB',
      async () => {
        const device = await DeviceBuffer.toDeviceAsync(source);
        const copy = device.copy();
        device.free();
        const host = await copy.copyToHostAsync();
        copy.free();
        return host;
      },
      { records },
    );
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    print(
      `round trip of ${formatBytes(ROUND_TRIP_BYTES)} host -> device -> device -> host with async copies in ${ms.toFixed(1)} ms: bytes ${sameBytes(back, source) ? 'equal' : 'DIFFER'}`,
    );

    profile('free 100 buffers', () => buffers.splice(0).forEach((b) => b.free()), { records });

    const counts = stats.allocationCounts;
    print('');
    print('statistics (bytes as requested, counted by StatisticsResourceAdaptor):');
    const row = (what: string, bytes: number, count: number) => [
      `  ${what}`,
      formatCount(bytes),
      'bytes in',
      formatCount(count),
      `allocation${count === 1 ? '' : 's'}`,
    ];
    for (const line of formatTable(
      [
        row('current', counts.currentBytes, counts.currentCount),
        row('peak', counts.peakBytes, counts.peakCount),
        row('total', counts.totalBytes, counts.totalCount),
      ],
      { alignLeft: 1 },
    ))
      print(line);
    print(`pool size: ${formatBytes(pool.poolSize())}`);
    print('');
    for (const line of records.report().trimEnd().split('\n')) print(line);
    return { statistics: counts, poolSize: pool.poolSize(), records, resourceStack: stack };
  } finally {
    for (const buffer of buffers) buffer.free();
    setCurrentDeviceResource(previous);
    stats[Symbol.dispose]();
    pool[Symbol.dispose]();
  }
}

export const demoCommand: Command = {
  name: 'demo',
  summary: 'a first run: Statistics(Pool(default)), DeviceBuffers, the statistics and the profiler report',
  help: `Usage: rmmjs demo

Makes StatisticsResourceAdaptor(PoolMemoryResource(the current device resource)) the current
resource, runs a short workload through DeviceBuffer (uploads, resizes, a 16 MiB round trip with
async copies), each step profiled, and prints the statistics and the profiler report. Runs on a
GPU and in host mode.

Options:
  -h, --help  this help`,
  options: {},
  positionals: { min: 0, max: 0, names: '' },
  async run(_values, _positionals, { stdout }) {
    await runDemo((line) => writeLines(stdout, [line]));
    stdout.write('\nNext: rmmjs info, rmmjs replay <log.csv>, rmmjs plot <log.csv> -o memory.svg (rmmjs --help)\n');
  },
};
