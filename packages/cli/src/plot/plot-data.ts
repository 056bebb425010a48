/** What `rmmjs plot` draws, computed from a log: memory in use over time and allocation sizes. */
import { Action, type AllocationLog } from '../log/allocation-log.js';
import { validateLog } from '../log/validate-log.js';
import { arrayOf, shape, validateBoolean, validateCount, validateFinite } from '../validate.js';

/** Above this many events the in-use series keeps, per time interval, its lowest and highest point. */
export const MAX_POINTS = 4000;

/** A point of the in-use series: what the log holds after an event. */
export interface InUsePoint {
  /** Microseconds since the first row. */
  time: number;
  /** Bytes allocated and not yet freed. */
  bytes: number;
}

/** A bar of the allocation size histogram. */
export interface SizeClass {
  /** Allocations of more than half of `upTo` and at most `upTo` bytes (powers of two; every class from the smallest to the largest, empty ones too). */
  upTo: number;
  /** How many allocations the class has. */
  count: number;
  /** Their bytes, added up. */
  bytes: number;
}

/** What `rmmjs plot` draws, computed from a log by `plotData`. */
export interface PlotData {
  /** Bytes in use after each allocation and free, from `{ time: 0, bytes: 0 }`; at most `MAX_POINTS` points. */
  inUse: InUsePoint[];
  /** Whether `inUse` was thinned to MAX_POINTS. */
  thinned: boolean;
  /** The allocation sizes by power of two, smallest first. */
  sizes: SizeClass[];
  /** The most bytes the log holds at once (`AllocationLog.peakBytes`). */
  peakBytes: number;
  /** Microseconds from the first row to the last. */
  durationUs: number;
}

/** Bytes in use after each event (allocations of the log that it has not freed yet). */
function inUseSeries(log: AllocationLog): InUsePoint[] {
  const points: InUsePoint[] = [{ time: 0, bytes: 0 }];
  let bytes = 0;
  for (let i = 0; i < log.events; i++) {
    if (log.slot[i] < 0) continue;
    bytes += log.action[i] === Action.allocate ? log.size[i] : -log.size[i];
    points.push({ time: log.time[i], bytes });
  }
  return points;
}

/** At most MAX_POINTS points: each of MAX_POINTS / 2 intervals keeps its lowest and highest point, in order. */
function thin(points: InUsePoint[], duration: number): InUsePoint[] {
  const intervals = MAX_POINTS / 2;
  const out: InUsePoint[] = [];
  let start = 0;
  while (start < points.length) {
    const interval = Math.min(intervals - 1, Math.floor((points[start].time / Math.max(duration, 1)) * intervals));
    let end = start;
    let low = start;
    let high = start;
    while (
      end + 1 < points.length &&
      Math.min(intervals - 1, Math.floor((points[end + 1].time / Math.max(duration, 1)) * intervals)) === interval
    ) {
      end++;
      if (points[end].bytes < points[low].bytes) low = end;
      if (points[end].bytes > points[high].bytes) high = end;
    }
    for (const i of low === high ? [low] : [Math.min(low, high), Math.max(low, high)]) out.push(points[i]);
    start = end + 1;
  }
  return out;
}

function sizeClasses(log: AllocationLog): SizeClass[] {
  const classes = new Map<number, SizeClass>();
  for (let i = 0; i < log.events; i++) {
    if (log.action[i] !== Action.allocate || log.slot[i] < 0) continue;
    const size = log.size[i];
    const upTo = size <= 1 ? 1 : 2 ** Math.ceil(Math.log2(size));
    const entry = classes.get(upTo) ?? { upTo, count: 0, bytes: 0 };
    entry.count++;
    entry.bytes += size;
    classes.set(upTo, entry);
  }
  // Every class from the smallest to the largest, empty ones too, so the axis is a scale.
  const filled: SizeClass[] = [];
  const bounds = [...classes.keys()];
  if (bounds.length === 0) return filled;
  for (let upTo = Math.min(...bounds); upTo <= Math.max(...bounds); upTo *= 2) {
    filled.push(classes.get(upTo) ?? { upTo, count: 0, bytes: 0 });
  }
  return filled;
}

/** What `rmmjs plot` draws for `log`: memory in use over time and the allocation sizes. */
export function plotData(log: AllocationLog): PlotData {
  return plotDataOf(validateLog(log));
}

/** `plotData` of a log already checked. */
export function plotDataOf(log: AllocationLog): PlotData {
  const series = inUseSeries(log);
  let durationUs = 0;
  for (let i = 0; i < log.events; i++) durationUs = Math.max(durationUs, log.time[i]);
  const thinned = series.length > MAX_POINTS;
  return {
    inUse: thinned ? thin(series, durationUs) : series,
    thinned,
    sizes: sizeClasses(log),
    peakBytes: log.peakBytes,
    durationUs,
  };
}

/** A `PlotData` argument (a copy). */
export const validatePlotData = shape({
  inUse: arrayOf(shape({ time: validateFinite, bytes: validateFinite })),
  thinned: validateBoolean,
  sizes: arrayOf(shape({ upTo: validateCount, count: validateCount, bytes: validateCount })),
  peakBytes: validateCount,
  durationUs: validateFinite,
});
