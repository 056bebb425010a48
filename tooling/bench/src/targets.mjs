// The benchmark's targets column: a ratio of two rows measured in the same run against its target.
// A row of N threads needs N cores: on a machine with fewer, its ratio is printed with `n/a (N
// cores)` in place of met or MISSED (the threads share cores, so the ratio says nothing about
// scaling).
import { availableParallelism } from 'node:os';

export const cores = availableParallelism();

/**
 * The target's verdict: { met: true | false | null, verdict: 'met' | 'MISSED' | 'n/a (N cores)' }.
 * `workers`: the threads the rows of the ratio run at once (default 1).
 */
export function judge(ratio, op, target, { workers = 1 } = {}) {
  if (workers > cores) return { met: null, verdict: `n/a (${cores} cores)` };
  const met = op === '<=' ? ratio <= target : ratio >= target;
  return { met, verdict: met ? 'met' : 'MISSED' };
}

/** One line of the targets column. */
export function targetLine(name, ratio, op, target, verdict, range = '') {
  return `${name.padEnd(44)} ${ratio.toFixed(3).padStart(8)}${range}  target ${op} ${target}  ${verdict}`;
}
