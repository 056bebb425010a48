import { parseBytes } from '@rmmjs/core';
import { writeLines, type Command } from '../command.js';
import { UsageError } from '../usage-error.js';
import { commandLinePath } from '../files.js';
import { formatBytes, formatCount, formatTable } from '../format.js';
import { readLog } from '../log/read-log.js';
import { progressBar } from '../progress.js';
import { replayLog, type ReplayReport } from '../replay/replay.js';
import { isReplayResource, REPLAY_RESOURCES, type ReplayResourceName } from '../replay/resources.js';
import { defaultReplayWorkers, MAX_REPLAY_WORKERS } from '../replay/worker-plan.js';
import {
  arrayOf,
  nullable,
  oneOf,
  optional,
  shape,
  validateCount,
  validateFinite,
  validateString,
} from '../validate.js';

/** `--resources pool,arena` as resource names; a name that is not one is a UsageError. */
export function parseResources(text: string): ReplayResourceName[] {
  const names = [...new Set(text.split(',').map((name) => name.trim()))];
  for (const name of names) {
    if (!isReplayResource(name)) {
      throw new UsageError(`--resources: unknown resource '${name}' (choose from ${REPLAY_RESOURCES.join(', ')})`);
    }
  }
  return names as ReplayResourceName[];
}

/** `--workers 8` as a number of worker threads (1 to MAX_REPLAY_WORKERS); anything else is a UsageError. */
export function parseWorkers(text: string): number {
  const workers = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!(workers >= 1 && workers <= MAX_REPLAY_WORKERS)) {
    throw new UsageError(`--workers: '${text}' is not a number of worker threads (1 to ${MAX_REPLAY_WORKERS})`);
  }
  return workers;
}

/** `--size 4GiB` in bytes; one that does not parse, or 0, is a UsageError. */
export function parseSize(text: string): number {
  let bytes: number;
  try {
    bytes = parseBytes(text);
  } catch {
    throw new UsageError(`--size: cannot read '${text}' as a size (for example 4GiB, 512MiB, 1000000000)`);
  }
  if (bytes === 0) throw new UsageError('--size: must be more than 0 bytes');
  return bytes;
}

const validateReport = shape({
  log: shape({
    source: validateString,
    events: validateCount,
    allocations: validateCount,
    frees: validateCount,
    loggedFailures: validateCount,
    threads: validateCount,
    streams: validateCount,
    peakBytes: validateCount,
    largestAllocation: validateCount,
    leaked: shape({ count: validateCount, bytes: validateCount }),
  }),
  size: nullable(validateCount),
  workers: optional(validateCount),
  results: arrayOf(
    shape({
      resource: oneOf(REPLAY_RESOURCES),
      className: nullable(validateString),
      skipped: nullable(validateString),
      error: nullable(validateString),
      timeMs: nullable(validateFinite),
      allocatorMs: nullable(validateFinite),
      peakRequestedBytes: nullable(validateCount),
      peakHeldBytes: nullable(validateCount),
      fragmentation: nullable(validateFinite),
      failures: validateCount,
    }),
  ),
});

const plural = (count: number, word: string) => `${formatCount(count)} ${word}${count === 1 ? '' : 's'}`;

function workersLine(workers: number, threads: number): string {
  if (workers >= threads) return `replayed on ${plural(workers, 'worker thread')}, one per logged thread`;
  return `replayed on ${plural(workers, 'worker thread')} (--workers): the ${formatCount(threads)} logged threads share them`;
}

/**
 * The lines `rmmjs replay` prints for `report` (without `--json`): the log's summary, a table of the
 * allocators that ran, a line for each one skipped or stopped, and what the columns mean.
 */
export function formatReplay(given: ReplayReport): string[] {
  // (A report written before `workers` was added has none: no line for it.)
  const report = validateReport(given, 'report');
  const { log } = report;
  const lines = [
    `log ${log.source}: ${plural(log.events, 'row')}, ${plural(log.allocations, 'allocation')}, ${plural(log.frees, 'free')}, ` +
      `${plural(log.loggedFailures, 'allocate failure')} (not replayed); ${plural(log.threads, 'thread')}, ${plural(log.streams, 'stream')}`,
    `peak in use ${formatBytes(log.peakBytes)}, largest allocation ${formatBytes(log.largestAllocation)}` +
      (log.leaked.count > 0
        ? `; ${plural(log.leaked.count, 'allocation')} of ${formatBytes(log.leaked.bytes)} never freed (freed after the replay)`
        : ''),
    ...(report.workers === undefined || report.workers === 0 ? [] : [workersLine(report.workers, log.threads)]),
    report.size === null ? 'upstream: not bounded' : `upstream: bounded to ${formatBytes(report.size)} (--size)`,
    '',
  ];
  const ran = report.results.filter((r) => r.skipped === null && r.className !== null);
  const dash = (value: number | null, format: (n: number) => string) => (value === null ? '-' : format(value));
  lines.push(
    ...formatTable(
      [
        [
          'resource',
          'allocator',
          'time',
          'in allocator',
          'peak requested',
          'peak held',
          'fragmentation',
          'failed allocations',
        ],
        ...ran.map((r) => [
          r.resource,
          r.className!,
          dash(r.timeMs, (ms) => `${ms.toFixed(3)} ms`),
          dash(r.allocatorMs, (ms) => `${ms.toFixed(3)} ms`),
          dash(r.peakRequestedBytes, formatBytes),
          dash(r.peakHeldBytes, formatBytes),
          dash(r.fragmentation, (f) => `${(f * 100).toFixed(1)}%`),
          formatCount(r.failures),
        ]),
      ],
      { alignLeft: 2 },
    ),
  );
  for (const r of report.results) {
    if (r.skipped !== null) lines.push(`${r.resource}: skipped: ${r.skipped}`);
    else if (r.error !== null) lines.push(`${r.resource}: ${r.error}`);
  }
  lines.push(
    '',
    "time: first event to last, threads taking turns in the log's order; in allocator: the time",
    'the threads spent in allocate and deallocate, added up; peak held: the most the allocator took',
    "from its upstream at once (not measured for the driver's own resources); fragmentation:",
    '1 - peak requested / peak held; failed allocations: out of memory in the replay (their frees',
    'are skipped).',
  );
  return lines;
}

export const replayCommand: Command = {
  name: 'replay',
  summary: 'replay an allocation log (RMM C++/Python or rmmjs CSV) against each allocator and compare them',
  help: `Usage: rmmjs replay <log.csv> [--resources pool,arena,...] [--size 4GiB] [--workers n] [--json]

Replays the allocations and frees of a log written by RMM's logging_resource_adaptor (C++, or
Python's rmm.enable_logging) or by @rmmjs/logging, against each allocator: a worker thread per
logged thread (up to --workers; beyond, the logged threads share them), every event in the log's
order. For each allocator it reports the time, the peak memory requested and held from upstream,
fragmentation (1 - peak requested / peak held) and the allocations that ran out of memory.

Options:
  --resources <list>  comma-separated, from ${REPLAY_RESOURCES.join(', ')}
                      (default: those that apply here; 'cuda' is the host-mode default
                      resource without a GPU)
  --size <bytes>      bound each allocator's upstream (pool maximum, arena size, and a
                      LimitingResourceAdaptor under each), e.g. 4GiB
  --workers <n>       the most worker threads, 1 to ${MAX_REPLAY_WORKERS} (default: one per core,
                      here ${defaultReplayWorkers()})
  --json              print the report as JSON
  -h, --help          this help`,
  options: {
    resources: { type: 'string' },
    size: { type: 'string' },
    workers: { type: 'string' },
    json: { type: 'boolean' },
  },
  positionals: { min: 1, max: 1, names: 'the log file (log.csv)' },
  async run(values, [file], { stdout, stderr }) {
    commandLinePath(file, 'the log file');
    const resources = values.resources === undefined ? undefined : parseResources(values.resources as string);
    const size = values.size === undefined ? undefined : parseSize(values.size as string);
    const workers = values.workers === undefined ? undefined : parseWorkers(values.workers as string);
    const progress = progressBar(stderr);
    try {
      const log = await readLog(file, {
        onProgress: (read, total) => progress.update(`reading ${file}`, read, total, 'bytes'),
      });
      const report = await replayLog(log, {
        resources,
        size,
        workers,
        onProgress: (resource, done, total) => progress.update(`replay ${resource}`, done, total, 'events'),
      });
      progress.stop();
      if (values.json) stdout.write(JSON.stringify(report, null, 2) + '\n');
      else writeLines(stdout, formatReplay(report));
      return report.results.some((r) => r.error !== null) ? 1 : 0;
    } finally {
      progress.stop();
    }
  },
};
