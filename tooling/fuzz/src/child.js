// The fuzz loop's process (run by test/fuzz.test.ts, never inside vitest): a crash or a hang
// here is reported by the parent with the seed and the commands that caused it.
//   node --expose-gc src/child.js '{"mode":"fuzz","seed":1,"calls":50000,"progress":"/tmp/p"}'
//   node --expose-gc src/child.js '{"mode":"replay","seed":1,"path":"3","keep":[0,4,5],"progress":"/tmp/p"}'
//   node --expose-gc src/child.js '{"mode":"commands","commands":[["new Stream",[0,{"o":{}}]]],"progress":"/tmp/p"}'
// The last line of stdout is the result as JSON.
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as turn } from 'node:timers/promises';
import fc from 'fast-check';
import { allModels, commandArbitrary, loadPackages, runSequence } from './engine.js';
import { outcomes } from './oracle.js';

const config = JSON.parse(process.argv[2]);
const backend = process.env.RMMJS_TEST_BACKEND ?? 'host';
const P = await loadPackages();
// Log files (LoggingResourceAdaptor's relative names, the debug log) go to a directory of its own.
const workDirectory = mkdtempSync(join(tmpdir(), 'rmmjs-fuzz-'));
process.chdir(workDirectory);
// FIFOs where the models name log files and leases (pipe.fifo, and enableLogging's pipe.dev<N>.fifo):
// nothing may block on one.
spawnSync('mkfifo', ['pipe.fifo', 'pipe.dev0.fifo', 'pipe.dev1.fifo', 'pipe.dev2.fifo']);
process.env.RMM_DEBUG_LOG_FILE = join(workDirectory, 'debug.log');
delete process.env.RMM_LOG_FILE;
const models = allModels();
const sequences = fc.array(commandArbitrary(models), {
  minLength: 1,
  maxLength: config.maxCommands ?? 120,
  size: 'max', // long sequences build up state (fast-check's default keeps them near 10)
});
const progress = openSync(config.progress, 'w');
const note = (value) => writeSync(progress, `${JSON.stringify(value)}\n`);
const coverage = new Set();

function failureOf(details, seed) {
  const error = details.errorInstance;
  return {
    seed,
    path: details.counterexamplePath,
    counterexample: details.counterexample?.[0]?.map((command) => fc.stringify(command)),
    error: error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error),
  };
}

let calls = 0;
let runs = 0;
let result;
if (config.mode === 'fuzz') {
  // Batches of runs, the k-th with seed + k, until enough calls were made: a failure names its
  // batch's seed and path, which `replay` runs again.
  for (let batch = 0; calls < config.calls && result === undefined; batch++) {
    const seed = (config.seed + batch) | 0;
    let run = 0;
    let failedAt;
    const property = fc.asyncProperty(sequences, async (commands) => {
      // After a failure fast-check shrinks it; past the budget every candidate passes, which ends
      // the shrinking with the smallest failure found so far.
      if (failedAt !== undefined && Date.now() - failedAt > (config.shrinkMs ?? 30_000)) return;
      note({ seed, run: run++, shrinking: failedAt !== undefined });
      runs++;
      const onCommand = config.trace
        ? (i) => note({ seed, run: run - 1, command: i, what: fc.stringify(commands[i]) })
        : undefined;
      try {
        calls += await runSequence(P, backend, commands, { coverage, onCommand, crashOn: config.crashOn });
      } catch (error) {
        failedAt ??= Date.now();
        throw error;
      }
    });
    const details = await fc.check(property, { seed, numRuns: config.runsPerBatch ?? 20 });
    if (details.failed) result = { failure: failureOf(details, seed) };
  }
} else if (config.mode === 'list') {
  // The commands of one run (seed and path), without running them.
  const property = fc.asyncProperty(sequences, async (commands) => {
    result = { commands: commands.map((command) => fc.stringify(command)) };
  });
  await fc.check(property, { seed: config.seed, path: config.path, numRuns: 1, endOnFailure: true });
} else if (config.mode === 'commands') {
  // Commands written down (a model's name and its argument descriptors each), without a seed, in
  // `repeat` runs (1 unless told). On the fake driver the result has its live streams before the
  // first run and after the last, once the collector ran.
  const byName = new Map(models.map((model) => [model.name, model]));
  const commands = config.commands.map(([name, args]) => {
    const model = byName.get(name);
    if (model === undefined) throw new Error(`no model is named ${JSON.stringify(name)}`);
    return { model, args };
  });
  const liveStreams = () => (backend === 'fake' ? P.fakeCuda.stats().liveStreams : undefined);
  const before = liveStreams();
  result = { commands: config.commands.map(([name, args]) => `${name}(${JSON.stringify(args)})`) };
  try {
    for (let i = 0; i < (config.repeat ?? 1); i++) {
      runs++;
      calls += await runSequence(P, backend, commands, { coverage, onCommand: (c) => note({ run: i, command: c }) });
    }
  } catch (error) {
    result.failure = { error: error instanceof Error ? (error.stack ?? String(error)) : String(error) };
  }
  for (let i = 0; i < 3; i++) {
    globalThis.gc?.();
    await turn();
  }
  if (backend === 'fake') result.liveStreams = { before, after: liveStreams() };
} else {
  // One sequence again (seed and path of a run), with only the commands `keep` lists.
  const keep = config.keep === undefined ? () => true : (i) => config.keep.includes(i);
  let commandsRun;
  const property = fc.asyncProperty(sequences, async (commands) => {
    commandsRun = commands.map((command) => fc.stringify(command));
    runs++;
    calls += await runSequence(P, backend, commands, {
      keep,
      onCommand: (i) => note({ command: i }),
      coverage,
      crashOn: config.crashOn,
    });
  });
  const details = await fc.check(property, { seed: config.seed, path: config.path, numRuns: 1, endOnFailure: true });
  result = { commands: commandsRun };
  if (details.failed) result.failure = failureOf(details, config.seed);
}
closeSync(progress);
if (outcomes !== undefined) {
  const lines = [...outcomes].sort(([a], [b]) => a.localeCompare(b));
  for (const [name, byOutcome] of lines)
    process.stderr.write(`${name}: ${JSON.stringify(Object.fromEntries(byOutcome))}\n`);
}
rmSync(workDirectory, { recursive: true, force: true });
process.stdout.write(`\n${JSON.stringify({ calls, runs, coverage: [...coverage], ...result })}\n`);
