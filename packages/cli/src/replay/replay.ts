/**
 * `rmmjs replay`: a log's allocations and frees run again against each allocator, in the log's
 * order (as RMM's replay benchmark does), on a worker thread per logged thread up to a bound (the
 * logged threads share them beyond it, see worker-plan.ts), and what each allocator did with
 * them: the time, the peak memory it held, its fragmentation, and the allocations that ran out of
 * memory.
 */
import { Worker } from 'node:worker_threads';
import {
  DEFAULT_STREAM,
  LEGACY_DEFAULT_STREAM,
  PER_THREAD_DEFAULT_STREAM,
  setPerDeviceResource,
  Stream,
  type DeviceMemoryResource,
  type SharedResourceToken,
} from '@rmmjs/core';
import { getLoggingLevel, LevelEnum, setLoggingLevel } from '@rmmjs/logging';
import { Action, type AllocationLog } from '../log/allocation-log.js';
import { onDevice } from '../on-device.js';
import {
  ABORT,
  abortReplay,
  CONTROL_LENGTH,
  PROGRESS,
  type ReplayWorkerData,
  type ReplayWorkerResult,
} from './protocol.js';
import { validateLog } from '../log/validate-log.js';
import { defaultReplayWorkers, planWorkers, validateWorkers, type WorkerPlan } from './worker-plan.js';
import {
  arrayOf,
  oneOf,
  optional,
  validateFunction,
  validateOptionalFunction,
  validateOptions,
  validateResource,
  validateSize,
} from '../validate.js';
import {
  buildReplayStack,
  DEFAULT_REPLAY_RESOURCES,
  REPLAY_RESOURCES,
  unavailableReason,
  type ReplayResourceName,
} from './resources.js';

/** Options of `replayLog`. */
export interface ReplayOptions {
  /** The allocators (default: `DEFAULT_REPLAY_RESOURCES`). */
  resources?: ReplayResourceName[];
  /** Bytes each allocator may take from upstream (default: no bound). */
  size?: number;
  /** Called as the replay of each resource goes on. */
  onProgress?: (resource: ReplayResourceName, done: number, total: number) => void;
  /**
   * The most worker threads the replay starts, 1 to 256 (default: one per core,
   * `os.availableParallelism()`); the logged threads share them when there are more.
   */
  workers?: number;
}

/** What the replay of one allocator gave: a row of `rmmjs replay`'s table. */
export interface ReplayResult {
  /** The allocator, by its name in `--resources`. */
  resource: ReplayResourceName;
  /** The allocator's class (null when it was skipped or could not be built). */
  className: string | null;
  /** Why it was not replayed here (null when it was). */
  skipped: string | null;
  /** Why its replay stopped: it could not be built, or a call failed with something else than running out of memory. */
  error: string | null;
  /** Milliseconds from the first event to the last (null when it did not finish). */
  timeMs: number | null;
  /** Milliseconds the threads spent in allocate and deallocate, added up (null when it did not finish). */
  allocatorMs: number | null;
  /** The most bytes the replayed allocations held at once. */
  peakRequestedBytes: number | null;
  /** The most bytes the allocator held from its upstream at once (null for the driver's own resources). */
  peakHeldBytes: number | null;
  /** 1 - peak requested / peak held (null where peak held is). */
  fragmentation: number | null;
  /** Allocations that failed with OutOfMemoryError (their frees are skipped). */
  failures: number;
}

/** What `rmmjs replay` says about a log before its table. */
export interface LogSummary {
  /** The log's file (`AllocationLog.source`). */
  source: string;
  /** The number of rows. */
  events: number;
  /** Rows `allocate`, as `AllocationLog.allocations` counts them. */
  allocations: number;
  /** Rows `free`, as `AllocationLog.frees` counts them. */
  frees: number;
  /** `allocate failure` rows: logged, not replayed. */
  loggedFailures: number;
  /** The number of logged threads. */
  threads: number;
  /** The number of logged streams. */
  streams: number;
  /** The most bytes the log holds at once. */
  peakBytes: number;
  /** The largest allocation, in bytes. */
  largestAllocation: number;
  /** Allocations the log never frees (the replay frees them after the clock stops). */
  leaked: {
    /** How many. */
    count: number;
    /** Their bytes, added up. */
    bytes: number;
  };
}

/** What `replayLog` returns (`rmmjs replay --json` prints it). */
export interface ReplayReport {
  /** The log's summary. */
  log: LogSummary;
  /** The bound on what each allocator could take from upstream, in bytes (`ReplayOptions.size`; null: none). */
  size: number | null;
  /** The worker threads each replay ran on (one per logged thread, up to `ReplayOptions.workers`). */
  workers: number;
  /** One result per allocator, in the order they were asked for. */
  results: ReplayResult[];
}

/** The counts of a parsed log that `rmmjs replay` prints. */
export function summarizeLog(log: AllocationLog): LogSummary {
  return summarize(validateLog(log));
}

function summarize(log: AllocationLog): LogSummary {
  return {
    source: log.source,
    events: log.events,
    allocations: log.allocations,
    frees: log.frees,
    loggedFailures: log.failures,
    threads: log.threads.length,
    streams: log.streams.length,
    peakBytes: log.peakBytes,
    largestAllocation: log.largestAllocation,
    leaked: { count: log.live.length, bytes: log.live.reduce((sum, a) => sum + a.size, 0) },
  };
}

/**
 * Replays `log` against each resource, one after the other. A log that cannot be replayed on
 * `options.workers` worker threads (see `replayOn`) is refused before any resource is built.
 */
export async function replayLog(log: AllocationLog, options: ReplayOptions = {}): Promise<ReplayReport> {
  log = validateLog(log);
  const { resources, size, onProgress, workers } = validateOptions<ReplayOptions>(options);
  const names = optional(resourceNames)(resources, 'options.resources') ?? DEFAULT_REPLAY_RESOURCES;
  const bound = size === undefined ? undefined : validateSize(size, 'options.size');
  const progress = validateOptionalFunction<NonNullable<ReplayOptions['onProgress']>>(onProgress, 'options.onProgress');
  const plan = planWorkers(log, optional(validateWorkers)(workers, 'options.workers') ?? defaultReplayWorkers());
  const results: ReplayResult[] = [];
  for (const name of names) {
    results.push(await replayResource(log, plan, name, bound, (done, total) => progress?.(name, done, total)));
  }
  return { log: summarize(log), size: bound ?? null, workers: plan.workers, results };
}

const resourceNames = arrayOf(oneOf(REPLAY_RESOURCES));

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

async function replayResource(
  log: AllocationLog,
  plan: WorkerPlan,
  resource: ReplayResourceName,
  size: number | undefined,
  onProgress: (done: number, total: number) => void,
): Promise<ReplayResult> {
  const result: ReplayResult = {
    resource,
    className: null,
    skipped: unavailableReason(resource, log),
    error: null,
    timeMs: null,
    allocatorMs: null,
    peakRequestedBytes: null,
    peakHeldBytes: null,
    fragmentation: null,
    failures: 0,
  };
  if (result.skipped !== null) return result;
  // Allocations that run out of memory are counted in the report, not logged one by one.
  const level = getLoggingLevel();
  setLoggingLevel(LevelEnum.off);
  let stack;
  try {
    stack = buildReplayStack(resource, size);
  } catch (error) {
    setLoggingLevel(level);
    result.error = `could not be built: ${messageOf(error)}`;
    return result;
  }
  try {
    result.className = stack.className;
    const run = await replayChecked(log, plan, stack.top, onProgress);
    result.timeMs = run.timeMs;
    result.allocatorMs = run.allocatorMs;
    result.failures = run.failures;
    result.error = run.error;
    result.peakRequestedBytes = stack.top.allocationCounts.peakBytes;
    if (stack.held !== null) {
      const held = stack.held.allocationCounts.peakBytes;
      result.peakHeldBytes = held;
      result.fragmentation = held > 0 ? 1 - result.peakRequestedBytes / held : null;
    }
    return result;
  } finally {
    stack[Symbol.dispose]();
    setLoggingLevel(level);
  }
}

const sharedInt32 = (length: number) => new Int32Array(new SharedArrayBuffer(4 * Math.max(length, 1)));

/** The worker of each event, and each worker's events, ascending, in shared memory. */
function eventsByWorker(log: AllocationLog, { workers, workerOf }: WorkerPlan) {
  const owner = sharedInt32(log.events);
  const counts = new Array<number>(workers).fill(0);
  for (let i = 0; i < log.events; i++) counts[(owner[i] = workerOf[log.thread[i]])]++;
  const lists = counts.map(sharedInt32);
  const filled = new Array<number>(workers).fill(0);
  for (let i = 0; i < log.events; i++) lists[owner[i]][filled[owner[i]]++] = i;
  return { owner, lists };
}

/** What `replayOn` reports about one replay. */
export interface ReplayOutcome {
  /** Milliseconds from the first event to the last (null when the replay stopped). */
  timeMs: number | null;
  /** Milliseconds the threads spent in allocate and deallocate, added up (null when the replay stopped). */
  allocatorMs: number | null;
  /** Allocations that failed with OutOfMemoryError. */
  failures: number;
  /** Why the replay stopped, with the log's line (null when it ran to the end). */
  error: string | null;
  /** The worker threads it ran on. */
  workers: number;
}

/**
 * Replays the log's events on `mr`, in the log's order, on a worker thread per logged thread up to
 * `options.workers` (1 to 256, default one per core, `os.availableParallelism()`): beyond that the
 * logged threads share them, each staying on one, every event still in the log's order. A logged
 * thread that allocates or frees on the per-thread default stream needs a worker of its own (the
 * stream is its thread's): a log with more of them than workers is refused (`TypeError`
 * `ERR_INVALID_ARG_VALUE`). `mr` is its device's resource meanwhile (`setPerDeviceResource(mr.device,
 * mr)`), the logged streams are replayed on streams of that device, whichever device is current,
 * and each worker gets `mr` through `mr.share()` (a worker's own current device is 0, whatever this
 * thread's is). Whatever the log leaves allocated, or the replay holds when it stops, is freed
 * afterwards. The replay runs on a copy of the log, taken in the call: writing to the log's columns
 * after it changes nothing.
 */
export async function replayOn(
  log: AllocationLog,
  mr: DeviceMemoryResource,
  onProgress: (done: number, total: number) => void = () => {},
  options: { workers?: number } = {},
): Promise<ReplayOutcome> {
  log = validateLog(log);
  mr = validateResource(mr, 'mr');
  onProgress = validateFunction<typeof onProgress>(onProgress, 'onProgress');
  const { workers } = validateOptions<typeof options>(options);
  const plan = planWorkers(log, optional(validateWorkers)(workers, 'options.workers') ?? defaultReplayWorkers());
  return replayChecked(log, plan, mr, onProgress);
}

async function replayChecked(
  log: AllocationLog,
  plan: WorkerPlan,
  mr: DeviceMemoryResource,
  onProgress: (done: number, total: number) => void,
): Promise<ReplayOutcome> {
  const control = sharedInt32(CONTROL_LENGTH);
  const turn = sharedInt32(plan.workers).fill(-1);
  const pointers = new BigUint64Array(new SharedArrayBuffer(8 * Math.max(log.slots, 1)));
  const failed = new Uint8Array(new SharedArrayBuffer(Math.max(log.slots, 1)));
  const defaults = [DEFAULT_STREAM, LEGACY_DEFAULT_STREAM, PER_THREAD_DEFAULT_STREAM];
  // `mr` is its device's resource while the replay runs, and the streams are made on that device,
  // whichever device is current.
  const device = mr.device;
  const previous = setPerDeviceResource(device, mr);
  // A stream of our own for each logged stream other than the default ones.
  const streams: Stream[] = [];
  try {
    onDevice(device, () => {
      for (const handle of log.streams) streams.push(handle <= 2n ? defaults[Number(handle)] : new Stream());
    });
  } catch (error) {
    for (const stream of streams) if (!defaults.includes(stream)) stream[Symbol.dispose]();
    setPerDeviceResource(device, previous);
    throw error;
  }
  // A callback that throws stops the replay; replayOn then throws its error (once it has cleaned up).
  let thrownByCallback: { error: unknown } | undefined;
  const timer = setInterval(() => {
    try {
      onProgress(Atomics.load(control, PROGRESS), log.events);
    } catch (error) {
      thrownByCallback = { error };
      clearInterval(timer);
      abortReplay(control, turn);
    }
  }, 100);
  let results: WorkerResults | undefined;
  let failure: unknown;
  try {
    results = await runWorkers(log, plan, { resource: mr.share(), control, turn, pointers, failed, streams });
  } catch (error) {
    failure = error;
  } finally {
    clearInterval(timer);
    setPerDeviceResource(device, previous);
  }
  const done = Atomics.load(control, PROGRESS);
  const unfreed = freeOutstanding(log, mr, done, pointers, failed, streams);
  for (const stream of streams) {
    if (!defaults.includes(stream)) {
      stream.synchronize();
      stream[Symbol.dispose]();
    }
  }
  if (thrownByCallback !== undefined) throw thrownByCallback.error;
  if (results === undefined) throw failure;
  onProgress(done, log.events);
  return { ...outcome(log, results, unfreed), workers: plan.workers };
}

/** What the workers' results say about the replay. */
function outcome(log: AllocationLog, results: WorkerResults, unfreed: number): Omit<ReplayOutcome, 'workers'> {
  const error = results.find((r) => r.kind === 'error');
  const end = results.find((r) => r.kind === 'done' && r.end !== null);
  let timeMs: number | null = null;
  if (log.events === 0) timeMs = 0;
  else if (error === undefined && end?.kind === 'done') timeMs = Number(end.end! - results.start) / 1e6;
  const problems: string[] = [];
  if (error !== undefined) {
    problems.push(error.event < log.events ? `line ${log.line[error.event]}: ${error.message}` : error.message);
  }
  if (unfreed > 0)
    problems.push(`${unfreed} allocation${unfreed === 1 ? '' : 's'} could not be freed after the replay`);
  return {
    timeMs,
    allocatorMs: timeMs === null ? null : results.reduce((sum, r) => sum + (r.kind === 'done' ? r.inAllocator : 0), 0),
    failures: results.reduce((sum, r) => sum + (r.kind === 'done' ? r.failures : 0), 0),
    error: problems.length > 0 ? problems.join('; ') : null,
  };
}

type WorkerResults = ReplayWorkerResult[] & { start: bigint };

async function runWorkers(
  log: AllocationLog,
  plan: WorkerPlan,
  shared: {
    resource: SharedResourceToken;
    control: Int32Array;
    turn: Int32Array;
    pointers: BigUint64Array;
    failed: Uint8Array;
    streams: Stream[];
  },
): Promise<WorkerResults> {
  const { resource, control, turn, pointers, failed, streams } = shared;
  const { owner, lists } = eventsByWorker(log, plan);
  const ready: Promise<void>[] = [];
  const done: Promise<ReplayWorkerResult>[] = [];
  for (const [index, events] of lists.entries()) {
    const data: ReplayWorkerData = {
      resource,
      worker: index,
      events,
      action: log.action,
      size: log.size,
      slot: log.slot,
      owner,
      stream: log.stream,
      streamHandles: streams.map((s) => s.handle),
      pointers,
      failed,
      control,
      turn,
    };
    const worker = new Worker(new URL('./replay-worker.js', import.meta.url), { workerData: data });
    let result: ReplayWorkerResult | undefined;
    let started!: () => void;
    ready.push(new Promise<void>((resolve) => (started = resolve)));
    done.push(
      new Promise((resolve) => {
        worker.on('message', (message: 'ready' | ReplayWorkerResult) => {
          if (message === 'ready') started();
          else result = message;
        });
        worker.on('error', (error) => {
          abortReplay(control, turn);
          result = { kind: 'error', message: messageOf(error), event: Atomics.load(control, PROGRESS) };
        });
        worker.on('exit', (code) => {
          started();
          if (result === undefined) {
            abortReplay(control, turn);
            result = {
              kind: 'error',
              message: `a replay thread exited (${code})`,
              event: Atomics.load(control, PROGRESS),
            };
          }
          resolve(result);
        });
      }),
    );
  }
  await Promise.all(ready);
  const start = process.hrtime.bigint();
  if (log.events > 0 && Atomics.load(control, ABORT) === 0) {
    Atomics.store(turn, owner[0], 0);
    Atomics.notify(turn, owner[0]);
  }
  return Object.assign(await Promise.all(done), { start });
}

/**
 * Frees what the replay still holds after `done` events: the allocations the log never frees,
 * or, after a failure, everything allocated up to it. Each on the stream it was allocated on.
 * Returns how many could not be freed (after a failure, the resource may refuse some).
 */
function freeOutstanding(
  log: AllocationLog,
  mr: DeviceMemoryResource,
  done: number,
  pointers: BigUint64Array,
  failed: Uint8Array,
  streams: Stream[],
): number {
  const allocatedBy = new Int32Array(Math.max(log.slots, 1)).fill(-1);
  for (let event = 0; event < done; event++) {
    const slot = log.slot[event];
    if (slot < 0) continue;
    allocatedBy[slot] = log.action[event] === Action.allocate ? event : -1;
  }
  let unfreed = 0;
  for (const [slot, event] of allocatedBy.entries()) {
    if (event < 0 || failed[slot] !== 0) continue;
    try {
      mr.deallocate(pointers[slot], log.size[event], streams[log.stream[event]]);
    } catch {
      unfreed++;
    }
  }
  return unfreed;
}
