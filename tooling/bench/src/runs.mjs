// `bench.mjs --runs N`: the whole table N times, each run in a process of its own (so that no JIT,
// heap or driver state carries from one run into the next), then per row the median and the range
// (min-max) over the runs, and the targets on the medians with the range of each run's ratio.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { judge, targetLine } from './targets.mjs';

function middle(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const half = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[half] : (sorted[half - 1] + sorted[half]) / 2;
}

const figure = (value) => value.toFixed(value < 10 ? 3 : 1);

/** The rows of each run, by group and name in the order they first came: values over the runs. */
function summarize(results) {
  const byKey = new Map();
  for (const result of results) {
    for (const { group, name, unit, value } of result.rows) {
      const key = `${group}\u0000${name}`;
      if (!byKey.has(key)) byKey.set(key, { group, name, unit, values: [] });
      byKey.get(key).values.push(value);
    }
  }
  return [...byKey.values()].map((row) => ({
    ...row,
    median: middle(row.values),
    min: Math.min(...row.values),
    max: Math.max(...row.values),
  }));
}

/**
 * Runs `script` (bench.mjs) `runs` times with `args` (without --runs and --json), prints the
 * summary and writes it to `jsonPath` when given. `targetsOf(value, peer)` lists the targets as
 * bench.mjs does. Returns false when a run failed (the runs that finished are summarized). With
 * `jsonPath`, each run's own table is kept next to it (`<name>.run-N.json`) as soon as the run
 * ends, so that the runs that finished survive a run that is killed (`--from-runs` sums them).
 */
export function repeatRuns({ script, args, runs, targetsOf, jsonPath }) {
  const dir = jsonPath ? undefined : mkdtempSync(join(tmpdir(), 'rmmjs-bench-runs-'));
  const runFile = (run) => (dir ? join(dir, `run-${run}.json`) : `${jsonPath.replace(/\.json$/, '')}.run-${run}.json`);
  const results = [];
  let ok = true;
  try {
    for (let run = 1; run <= runs; run++) {
      console.log(`\n=== run ${run} of ${runs} ===`);
      const file = runFile(run);
      const child = spawnSync(process.execPath, [script, ...args, '--json', file], { stdio: 'inherit' });
      if (child.status !== 0) {
        console.log(`run ${run} failed (${child.error?.message ?? `exit ${child.status ?? child.signal}`})`);
        ok = false;
        break;
      }
      results.push(JSON.parse(readFileSync(file, 'utf8')));
    }
  } finally {
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
  return summarizeRuns({ results, targetsOf, jsonPath }) && ok;
}

/** `bench.mjs --from-runs FILE...`: the summary of runs already made (each file one run's --json). */
export function summarizeRunFiles({ files, targetsOf, jsonPath }) {
  return summarizeRuns({ results: files.map((file) => JSON.parse(readFileSync(file, 'utf8'))), targetsOf, jsonPath });
}

function summarizeRuns({ results, targetsOf, jsonPath }) {
  if (results.length === 0) return false;

  const rows = summarize(results);
  const seconds = results.map((result) => result.seconds);
  console.log(
    `\n=== ${results.length} runs on ${results[0].device}: median (min-max); ` +
      `each run took ${seconds.map((s) => s.toFixed(0)).join(', ')} s ===`,
  );
  for (const { group, name, unit, median, min, max } of rows) {
    const range = `(${figure(min)}-${figure(max)})`;
    console.log(`${group.padEnd(24)} ${name.padEnd(44)} ${figure(median).padStart(12)} ${range.padEnd(22)} ${unit}`);
  }

  const value = (group, name) => rows.find((r) => r.group === group && r.name.startsWith(name))?.median;
  const peer = (name) => rows.find((r) => r.group === 'peers (Python)' && r.name === name)?.median;
  const targets = [];
  console.log(`\ntargets (ratios of the medians; the range of each run's own ratio)`);
  for (const [name, ours, theirs, op, target, options] of targetsOf(value, peer)) {
    if (ours === undefined || theirs === undefined) continue;
    const ratio = ours / theirs;
    const each = results.flatMap((result) => result.targets.filter((t) => t.name === name).map((t) => t.ratio));
    const range = each.length ? { min: Math.min(...each), max: Math.max(...each) } : undefined;
    const { met, verdict } = judge(ratio, op, target, options);
    targets.push({ name, ratio, ...(range && { range }), op, target, met, verdict });
    const shown = range ? ` (${range.min.toFixed(3)}-${range.max.toFixed(3)})` : '';
    console.log(targetLine(name, ratio, op, target, verdict, shown));
  }

  if (jsonPath) {
    const { gpu, device, quick } = results[0];
    writeFileSync(
      jsonPath,
      JSON.stringify({ gpu, device, quick, runs: results.length, seconds, rows, targets }, null, 2),
    );
  }
  return true;
}
