import { cuda } from '@rmmjs/core';
import { BENCH_RESOURCES, runBench, type BenchResourceName, type BenchRow } from '../bench/bench.js';
import { writeLines, type Command } from '../command.js';
import { UsageError } from '../usage-error.js';
import { progressBar } from '../progress.js';

export function parseBenchResources(text: string): BenchResourceName[] {
  const names = [...new Set(text.split(',').map((name) => name.trim()))];
  for (const name of names) {
    if (!(BENCH_RESOURCES as readonly string[]).includes(name)) {
      throw new UsageError(`--resources: unknown resource '${name}' (choose from ${BENCH_RESOURCES.join(', ')})`);
    }
  }
  return names as BenchResourceName[];
}

export function formatBenchRow({ group, name, value, unit, note }: BenchRow): string {
  return `${group.padEnd(24)} ${name.padEnd(44)} ${value.toFixed(value < 10 ? 3 : 1).padStart(12)} ${unit.padEnd(6)} ${note}`.trimEnd();
}

export const benchCommand: Command = {
  name: 'bench',
  summary: 'the benchmark: allocate+free pairs, a random workload, threads, DeviceBuffer, copies',
  help: `Usage: rmmjs bench [--resources pool,arena,...] [--quick] [--json]

Measures, from JavaScript on this machine's GPU (or in host mode): per resource, ns per
allocate+free pair of 1 MiB and ns per operation of a random workload (sizes 1 B..4 MiB, up to
1000 live); pool and arena shared by 1, 2, 4 and 8 worker threads; DeviceBuffer create+free of
64 bytes; host<->device copies in GB/s (pageable, and pinned on a GPU).

Options:
  --resources <list>  comma-separated, from ${BENCH_RESOURCES.join(', ')} (default: all;
                      'cuda' is the host-mode default resource without a GPU)
  --quick             a tenth of the iterations
  --json              print the results as JSON
  -h, --help          this help`,
  options: { resources: { type: 'string' }, quick: { type: 'boolean' }, json: { type: 'boolean' } },
  positionals: { min: 0, max: 0, names: '' },
  async run(values, _positionals, { stdout, stderr }) {
    const resources = values.resources === undefined ? undefined : parseBenchResources(values.resources as string);
    const json = values.json === true;
    const progress = progressBar(stderr);
    const quick = values.quick === true;
    if (!json) {
      const where = cuda.isAvailable() ? cuda.deviceName() : 'host (no GPU: device memory is host memory)';
      stdout.write(`rmmjs bench on ${where}${quick ? ' (quick)' : ''}\n\n`);
    }
    try {
      const report = await runBench({
        resources,
        quick,
        onRow: (row) => (json ? undefined : progress.print(stdout, formatBenchRow(row))),
        onStep: (what, done, total) => progress.update(`bench ${what}`.padEnd(20), done, total, 'steps'),
      });
      progress.stop();
      if (json) stdout.write(JSON.stringify(report, null, 2) + '\n');
      else
        writeLines(
          stdout,
          report.skipped.map(({ resource, why }) => `${resource}: skipped: ${why}`),
        );
    } finally {
      progress.stop();
    }
  },
};
