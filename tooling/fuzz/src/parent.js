// The test's side: runs the fuzz loop in a child process (src/child.js) and turns what happened
// into a report. A failed check comes back from the child with fast-check's shrunk counterexample;
// a crash (a signal, an abort, an exit without a result) or a hang (the time limit) is replayed in
// new children from the child's progress file, and its commands are shrunk by dropping chunks of
// them while the replay still crashes (or hangs).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// ArrayBuffer.prototype.transfer (Node 21 on; Node 20 behind a flag): the models move host memory with it.
const nodeArgs = ['--expose-gc', ...('transfer' in ArrayBuffer.prototype ? [] : ['--harmony-rab-gsab-transfer'])];

const childPath = fileURLToPath(new URL('./child.js', import.meta.url));

/** Runs the child once: `{ result, crash, progress }` (crash: why it ended without a result). */
export function runChild(config, { timeoutMs }) {
  const dir = mkdtempSync(join(tmpdir(), 'rmmjs-fuzz-progress-'));
  const progress = join(dir, 'progress');
  try {
    const run = spawnSync(process.execPath, [...nodeArgs, childPath, JSON.stringify({ ...config, progress })], {
      encoding: 'utf8',
      timeout: timeoutMs,
      killSignal: 'SIGKILL',
      maxBuffer: 64 * 1024 * 1024,
    });
    const lastLine = run.stdout?.trim().split('\n').at(-1) ?? '';
    let result;
    try {
      result = JSON.parse(lastLine);
    } catch {
      result = undefined;
    }
    const timedOut = run.error?.code === 'ETIMEDOUT';
    const lines = readLines(progress);
    if (result !== undefined && run.status === 0) return { result, progress: lines };
    const why = timedOut
      ? `a hang: no result after ${timeoutMs / 1000} s`
      : run.signal
        ? `a crash: killed by ${run.signal}`
        : `a crash: exit status ${run.status}`;
    return {
      crash: { why, timedOut, signal: run.signal, status: run.status, stderr: tail(run.stderr) },
      progress: lines,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function readLines(file) {
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  } catch {
    return [];
  }
}

function tail(text = '', lines = 30) {
  return text.trim().split('\n').slice(-lines).join('\n');
}

/**
 * Fuzzes with `seed` until `calls` calls were made. Returns `{ calls, runs, coverage }`, or
 * `{ failure }` with a report naming the seed, the path and the (shrunk) commands.
 * `crashOn` (a model's name) makes the child abort at that model's first call: the crash report's
 * own test.
 * @param {{ seed: number, calls: number, timeoutMs: number, shrinkMs?: number, crashOn?: string }} options
 */
export function fuzz({ seed, calls, timeoutMs, shrinkMs = 60_000, crashOn }) {
  const first = runChild({ mode: 'fuzz', seed, calls, crashOn }, { timeoutMs });
  if (first.result !== undefined) {
    const { failure } = first.result;
    if (failure === undefined) return first.result;
    return {
      ...first.result,
      failure: [
        `a check failed (seed ${failure.seed}, path ${failure.path}): repeat with RMMJS_FUZZ_SEED=${seed}`,
        'shrunk counterexample (the commands of one run):',
        ...failure.counterexample.map((command) => `  ${command}`),
        failure.error,
      ].join('\n'),
    };
  }
  return { calls: 0, runs: 0, coverage: [], failure: describeCrash(seed, first, { timeoutMs, shrinkMs, crashOn }) };
}

// Replays the run that crashed, and shrinks its commands while the replay still crashes.
function describeCrash(seed, { crash, progress }, { timeoutMs, shrinkMs, crashOn }) {
  const last = progress.findLast((line) => 'run' in line);
  const lines = [`${crash.why} (repeat with RMMJS_FUZZ_SEED=${seed})`];
  if (last === undefined) return [...lines, 'it happened before the first run', crash.stderr].join('\n');
  if (last.shrinking) {
    // fast-check was shrinking a failed check: the crash is in one of the candidates it tried.
    const failed = progress.find((line) => line.seed === last.seed && line.shrinking);
    lines.push(`while shrinking a failed check of the run at seed ${last.seed}, path ${failed.run - 1}`);
    return [...lines, crash.stderr].join('\n');
  }
  const where = { seed: last.seed, path: String(last.run) };
  lines.push(`in the run at seed ${where.seed}, path ${where.path}`);
  const listed = runChild({ mode: 'list', ...where }, { timeoutMs });
  const commands = listed.result?.commands ?? [];
  const replayTimeout = Math.min(timeoutMs, 60_000);
  const crashes = (keep) => {
    const replay = runChild({ mode: 'replay', ...where, keep, crashOn }, { timeoutMs: replayTimeout });
    if (replay.crash === undefined) return undefined;
    const started = replay.progress.findLast((line) => 'command' in line && line.command >= 0);
    return { ...replay.crash, at: started?.command };
  };
  const all = commands.map((_, i) => i);
  const again = crashes(all);
  if (again === undefined) {
    lines.push(
      'the run alone does not crash (it needs the runs before it): its commands were',
      ...commands.map((c) => `  ${c}`),
    );
    return [...lines, crash.stderr].join('\n');
  }
  // Commands after the one that crashed never ran.
  let keep = again.at === undefined ? all : all.slice(0, again.at + 1);
  const deadline = Date.now() + shrinkMs;
  for (let chunk = Math.max(1, Math.floor(keep.length / 2)); chunk >= 1 && Date.now() < deadline;) {
    let removed = false;
    for (let start = 0; start < keep.length && Date.now() < deadline; start += chunk) {
      const candidate = [...keep.slice(0, start), ...keep.slice(start + chunk)];
      if (candidate.length > 0 && crashes(candidate) !== undefined) {
        keep = candidate;
        removed = true;
        start -= chunk;
      }
    }
    if (!removed) chunk = Math.floor(chunk / 2);
  }
  lines.push(
    `shrunk: ${keep.length} of its ${commands.length} commands still crash (replay: mode 'replay', keep ${JSON.stringify(keep)}):`,
    ...keep.map((i) => `  ${commands[i]}`),
    again.stderr,
  );
  return lines.join('\n');
}
