import { parseBytes } from '@rmmjs/core';
import { writeLines, type Command } from '../command.js';
import { UsageError } from '../usage-error.js';
import { formatBytes, formatCount, formatTable } from '../format.js';
import { readLog } from '../log/read-log.js';
import { progressBar } from '../progress.js';
import { replayLog, type ReplayReport } from '../replay/replay.js';
import { isReplayResource, REPLAY_RESOURCES, type ReplayResourceName } from '../replay/resources.js';
import { arrayOf, nullable, oneOf, shape, validateCount, validateFinite, validateString } from '../validate.js';

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

/**
 * The lines `rmmjs replay` prints for `report` (without `--json`): the log's summary, a table of the
 * allocators that ran, a line for each one skipped or stopped, and what the columns mean.
 */
export function formatReplay(report: ReplayReport): string[] {
  report = validateReport(report, 'report');
  const { log } = report;
  const lines = [
    `log ${log.source}: ${plural(log.events, 'row')}, ${plural(log.allocations, 'allocation')}, ${plural(log.frees, 'free')}, ` +
      `${plural(log.loggedFailures, 'allocate failure')} (not replayed); ${plural(log.threads, 'thread')}, ${plural(log.streams, 'stream')}`,
    `peak in use ${formatBytes(log.peakBytes)}, largest allocation ${formatBytes(log.largestAllocation)}` +
      (log.leaked.count > 0
        ? `; ${plural(log.leaked.count, 'allocation')} of ${formatBytes(log.leaked.bytes)} never freed (freed after the replay)`
        : ''),
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
  help: `Usage: rmmjs replay <log.csv> [--resources pool,arena,...] [--size 4GiB] [--json]

Replays the allocations and frees of a log written by RMM's logging_resource_adaptor (C++, or
Python's rmm.enable_logging) or by @rmmjs/logging, against each allocator: one worker thread per
logged thread, every event in the log's order. For each allocator it reports the time, the peak
memory requested and held from upstream, fragmentation (1 - peak requested / peak held) and the
allocations that ran out of memory.

Options:
  --resources <list>  comma-separated, from ${REPLAY_RESOURCES.join(', ')}
                      (default: those that apply here; 'cuda' is the host-mode default
                      resource without a GPU)
  --size <bytes>      bound each allocator's upstream (pool maximum, arena size, and a
                      LimitingResourceAdaptor under each), e.g. 4GiB
  --json              print the report as JSON
  -h, --help          this help`,
  options: { resources: { type: 'string' }, size: { type: 'string' }, json: { type: 'boolean' } },
  positionals: { min: 1, max: 1, names: 'the log file (log.csv)' },
  async run(values, [file], { stdout, stderr }) {
    const resources = values.resources === undefined ? undefined : parseResources(values.resources as string);
    const size = values.size === undefined ? undefined : parseSize(values.size as string);
    const progress = progressBar(stderr);
    try {
      const log = await readLog(file, {
        onProgress: (read, total) => progress.update(`reading ${file}`, read, total, 'bytes'),
      });
      const report = await replayLog(log, {
        resources,
        size,
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
