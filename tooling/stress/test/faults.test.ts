// Fault injection across stacks (fake driver only): a stack is built, runs a workload of buffers
// and is closed, once without faults to learn which driver functions it calls and how often, then
// once per fault: the nth call of one of those functions fails, for n spread over all its calls.
// Every failure must be a documented error (OutOfMemoryError, or CudaError with the injected code),
// the counting adaptors must agree with the buffers held after every step, and once everything is
// freed the fake driver must hold what it held before (but for the one stream, event or pool whose
// destruction the driver refused, or the memory it refused to take back while the stack was closed:
// nobody can free those again).
import { CudaError, OutOfMemoryError } from '@rmmjs/core';
import { fakeCuda, onFake } from '@rmmjs/test-helpers';
import { afterAll, describe, expect, it } from 'vitest';
import { buildStack, expectedCounters, type Stack } from '../src/stacks.js';
import { Workload } from '../src/workload.js';
import { liveInDriver, scaled, seed } from './common.js';

const STEPS = 40;
// At most this many faults per driver function and stack: calls n = 1, 1 + k, 1 + 2k, ...
const FAULTS_PER_FUNCTION = scaled(40);
const ERRORS = [
  { name: 'CUDA_ERROR_OUT_OF_MEMORY', code: 2 },
  { name: 'CUDA_ERROR_LAUNCH_FAILED', code: 719 },
];
type Live = NonNullable<ReturnType<typeof liveInDriver>>;
// Functions that release an object, and the fake driver's count of that kind of object.
const RELEASES: Record<string, keyof Live> = {
  cuMemFree_v2: 'liveAllocations',
  cuMemFreeAsync: 'liveAllocations',
  cuMemFreeHost: 'liveAllocations',
  cuStreamDestroy_v2: 'liveStreams',
  cuEventDestroy_v2: 'liveEvents',
  cuMemPoolDestroy: 'livePools',
};
// Calls that make a device's context current before a release.
const CONTEXT_CALLS = ['cuCtxGetCurrent', 'cuCtxSetCurrent', 'cuCtxGetDevice'];
const nothing: Live = { liveAllocations: 0, liveBytes: 0, liveStreams: 0, liveEvents: 0, livePools: 0 };

function difference(after: Live, before: Live): Live {
  const result = { ...nothing };
  for (const key of Object.keys(nothing) as (keyof Live)[]) result[key] = after[key] - before[key];
  return result;
}

// The kinds of object a fault may leave behind, one object at most: what a release the driver
// refused was to release (whoever called it has no way to try again: a destructor, a Stream's
// dispose), or, while the stack is closed, what a failed context switch kept it from releasing.
function mayLeaveOne(fault: Fault, phase: Phase): (keyof Live)[] {
  if (fault.symbol in RELEASES) return [RELEASES[fault.symbol]];
  if (phase === 'close' && CONTEXT_CALLS.includes(fault.symbol)) {
    return ['liveAllocations', 'liveStreams', 'liveEvents', 'livePools'];
  }
  return [];
}

// Whether `leaked` is exactly one object of one of `kinds` (and its bytes, for memory).
function leftOneObject(leaked: Live, kinds: (keyof Live)[]): boolean {
  const objects = (Object.keys(leaked) as (keyof Live)[]).filter((key) => key !== 'liveBytes' && leaked[key] !== 0);
  if (objects.length !== 1 || leaked[objects[0]] !== 1 || !kinds.includes(objects[0])) return false;
  return objects[0] === 'liveAllocations' || leaked.liveBytes === 0;
}

const stacks = [
  'Statistics(Limiting(Pool(Cuda)))',
  'Tracking(Binning(Arena(Cuda)))',
  'Statistics(Tracking(CudaAsync))',
  'Limiting(Binning(Pool(CudaAsync)))',
];

interface Fault {
  symbol: string;
  nth: number;
  error: { name: string; code: number };
}

type Phase = 'build' | 'work' | 'close';

/** What one run saw: the errors it tolerated, and the driver's calls at the end of each phase. */
interface Run {
  errors: unknown[];
  calls: Partial<Record<Phase, Record<string, number>>>;
  held?: number;
}

const calls = () => fakeCuda.stats().calls;

function expectDocumented(error: unknown, fault: Fault | undefined, where: string) {
  const detail = `${where}, fault ${JSON.stringify(fault)}: ${(error as Error)?.stack ?? error}`;
  if (error instanceof OutOfMemoryError) {
    expect((error as OutOfMemoryError).code, detail).toBe('ERR_RMM_OUT_OF_MEMORY');
    return;
  }
  expect(fault, `a failure without a fault: ${detail}`).toBeDefined();
  expect(error, detail).toBeInstanceOf(CudaError);
  expect((error as CudaError).code, detail).toBe('ERR_CUDA');
  expect((error as CudaError).cudaErrorCode, detail).toBe(fault!.error.code);
  expect((error as CudaError).cudaErrorName, detail).toBe(fault!.error.name);
}

// Builds the stack, runs the workload over it (counters checked after every step), frees
// everything and closes the stack.
async function runOnce(spec: string, fault?: Fault): Promise<Run> {
  const run: Run = { errors: [], calls: {} };
  const tolerate = (error: unknown) => {
    expectDocumented(error, fault, 'in the workload');
    run.errors.push(error);
    return true;
  };
  let stack: Stack;
  try {
    stack = buildStack(spec, { poolSize: 8 * 1024 * 1024 });
  } catch (error) {
    tolerate(error);
    run.calls.build = calls();
    return run;
  }
  run.calls.build = calls();
  let workload: Workload | undefined;
  try {
    workload = new Workload({ seed, mr: stack.top, streams: 2, maxLive: 8, maxSize: 16 * 1024, tolerate });
    for (let step = 0; step < STEPS; step++) {
      await workload.step();
      expect(stack.counters(), `after step ${step}`).toEqual(expectedCounters(stack, workload.liveCapacities()));
    }
    workload.close();
    expect(stack.counters()).toEqual(expectedCounters(stack, []));
  } catch (error) {
    // A failed check: free what is left, so that the next runs start clean, and report it.
    fakeCuda.clearFaults();
    try {
      workload?.close();
      stack.close();
    } catch {}
    throw error;
  }
  run.calls.work = calls();
  run.held = stack.close();
  run.calls.close = calls();
  return run;
}

// The phase in which the fault fired, or undefined when the run never reached it.
function firedIn(run: Run, fault: Fault): Phase | undefined {
  const phases: Phase[] = ['build', 'work', 'close'];
  return phases.find((phase) => (run.calls[phase]?.[fault.symbol] ?? 0) >= fault.nth);
}

const describeOnFake = onFake() ? describe : describe.skip;
let injected = 0;
let leftBehind = 0;

describeOnFake('a fault at every nth call of every driver function a stack reaches', () => {
  afterAll(() => {
    console.log(
      `stress faults: ${injected} faults injected (RMMJS_TEST_SEED=${seed}); after ${leftBehind} of them ` +
        'the driver kept the one object whose release it refused',
    );
  });

  it.each(stacks)('%s', async (spec) => {
    await runOnce(spec); // the first use of a stack's packages may call the driver once more
    fakeCuda.reset();
    const before = liveInDriver();
    const baseline = await runOnce(spec);
    expect(baseline.errors).toEqual([]);
    expect(baseline.held).toBe(0);
    expect(liveInDriver()).toEqual(before);
    const reached = Object.entries(baseline.calls.close!).filter(([, count]) => count > 0);
    expect(reached.length).toBeGreaterThan(5);

    let fired = 0;
    let unfired = 0;
    for (const [symbol, count] of reached) {
      const stride = Math.ceil(count / FAULTS_PER_FUNCTION);
      for (let nth = 1; nth <= count; nth += stride) {
        const fault = { symbol, nth, error: ERRORS[(nth + fired) % ERRORS.length] };
        const driverBefore = liveInDriver()!;
        fakeCuda.reset();
        fakeCuda.failNext(symbol, nth, fault.error.name);
        let run: Run;
        try {
          run = await runOnce(spec, fault);
        } catch (error) {
          (error as Error).message += ` (fault ${JSON.stringify(fault)}, RMMJS_TEST_SEED=${seed})`;
          throw error;
        } finally {
          fakeCuda.clearFaults();
        }
        const phase = firedIn(run, fault);
        // Calls made once per thread (a context made current on a thread of the copy pool) can
        // happen in one run and not the next.
        if (phase === undefined) {
          unfired++;
          continue;
        }
        fired++;
        const leaked = difference(liveInDriver()!, driverBefore);
        const leftOne = leftOneObject(leaked, mayLeaveOne(fault, phase));
        if (leftOne) leftBehind++;
        const where = `after fault ${JSON.stringify(fault)} (fired in ${phase})`;
        expect(leaked, `left in the driver ${where}`).toEqual(leftOne ? leaked : nothing);
        if (run.held !== undefined && !(leftOne && leaked.liveAllocations === 1)) {
          expect(run.held, `bytes the stack kept ${where}`).toBe(0);
        }
      }
    }
    injected += fired;
    expect(fired, `faults that fired (${unfired} did not)`).toBeGreaterThan(0.9 * (fired + unfired));
  });
});
