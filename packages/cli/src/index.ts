/**
 * @rmmjs/cli: the `rmmjs` command, and what its commands compute, for programs.
 *
 *   import { readLog, replayLog, collectInfo } from '@rmmjs/cli';
 *   const report = await replayLog(await readLog('rmm_log.csv'), { resources: ['pool', 'arena'] });
 *
 * @packageDocumentation
 */
export { main, commands, usage } from './main.js';
export type { Command, OptionValues, Output } from './command.js';
export { UsageError } from './usage-error.js';
export { collectInfo, formatInfo } from './commands/info.js';
export type { MachineInfo, DeviceInfo } from './commands/info.js';
export { runDemo } from './commands/demo.js';
export type { DemoResult } from './commands/demo.js';
export { Action, LOG_COLUMNS } from './log/allocation-log.js';
export type { AllocationLog, LiveAllocation } from './log/allocation-log.js';
export { LogFormatError } from './log/log-format-error.js';
export { LogParser } from './log/log-parser.js';
export { parseLog, readLog } from './log/read-log.js';
export { replayLog, replayOn, summarizeLog } from './replay/replay.js';
export type { LogSummary, ReplayOptions, ReplayOutcome, ReplayReport, ReplayResult } from './replay/replay.js';
export { DEFAULT_REPLAY_RESOURCES, REPLAY_RESOURCES } from './replay/resources.js';
export type { ReplayResourceName } from './replay/resources.js';
export { formatReplay } from './commands/replay.js';
export { MAX_POINTS, plotData } from './plot/plot-data.js';
export type { PlotData, InUsePoint, SizeClass } from './plot/plot-data.js';
export { plotSpec } from './plot/spec.js';
export { renderHtml, renderSvg } from './plot/render.js';
export { formatBytes } from './format.js';
export { BENCH_RESOURCES, benchCopies, runBench } from './bench/bench.js';
export type { BenchOptions, BenchReport, BenchResourceName, BenchRow } from './bench/bench.js';
export { randomWorkload, runRandomWorkload } from './bench/workloads.js';
export type { Allocator, RandomWorkload } from './bench/workloads.js';
export { threadOpsPerSecond } from './bench/threads.js';
