/** The Vega-Lite specification of `rmmjs plot`: memory in use over time above a histogram of allocation sizes. */
import { basename } from 'node:path';
import type { TopLevelSpec } from 'vega-lite';
import { formatBytes, formatCount } from '../format.js';
import type { AllocationLog } from '../log/allocation-log.js';
import { validateLog } from '../log/validate-log.js';
import { plotDataOf, validatePlotData, type PlotData } from './plot-data.js';

const BYTE_UNITS: [string, number][] = [
  ['GiB', 2 ** 30],
  ['MiB', 2 ** 20],
  ['KiB', 2 ** 10],
  ['B', 1],
];

/** The largest unit in which `bytes` is at least 1. */
function byteUnit(bytes: number): [string, number] {
  return BYTE_UNITS.find(([, scale]) => bytes >= scale) ?? ['B', 1];
}

function timeUnit(durationUs: number): [string, number] {
  if (durationUs >= 10e6) return ['s', 1e6];
  if (durationUs >= 10e3) return ['ms', 1e3];
  return ['µs', 1];
}

/**
 * The Vega-Lite specification `rmmjs plot` renders for `log`: memory in use over time above a
 * histogram of allocation sizes, drawn from `data` (default `plotData(log)`).
 */
export function plotSpec(log: AllocationLog, data?: PlotData): TopLevelSpec {
  log = validateLog(log);
  data = data === undefined ? plotDataOf(log) : validatePlotData(data, 'data');
  const [bytesName, bytesScale] = byteUnit(data.peakBytes);
  const [timeName, timeScale] = timeUnit(data.durationUs);
  const width = 760;
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    description: `Memory in use over time and allocation sizes of the allocation log ${log.source}`,
    title: {
      text: `Allocation log ${basename(log.source)}`,
      subtitle: `peak ${formatBytes(data.peakBytes)} in use; ${formatCount(log.allocations)} allocations, ${formatCount(log.frees)} frees; ${log.threads.length} thread${log.threads.length === 1 ? '' : 's'}`,
    },
    background: 'white',
    padding: 16,
    vconcat: [
      {
        title: data.thinned ? 'Memory in use (lowest and highest point of each interval)' : 'Memory in use',
        width,
        height: 260,
        data: { values: data.inUse.map(({ time, bytes }) => ({ time: time / timeScale, inUse: bytes / bytesScale })) },
        mark: { type: 'area', interpolate: 'step-after', line: true, opacity: 0.35 },
        encoding: {
          x: { field: 'time', type: 'quantitative', title: `time since the first row (${timeName})` },
          y: { field: 'inUse', type: 'quantitative', title: `in use (${bytesName})` },
        },
      },
      {
        title: 'Allocation sizes',
        width,
        height: 200,
        data: {
          values: data.sizes.map(({ upTo, count, bytes }) => ({ size: `≤ ${formatBytes(upTo)}`, count, bytes })),
        },
        mark: { type: 'bar' },
        encoding: {
          x: {
            field: 'size',
            type: 'ordinal',
            sort: null,
            title: 'allocation size',
            axis: { labelAngle: data.sizes.length > 14 ? -45 : 0 },
          },
          y: { field: 'count', type: 'quantitative', title: 'allocations', axis: { tickMinStep: 1, format: ',d' } },
        },
      },
    ],
  };
}
