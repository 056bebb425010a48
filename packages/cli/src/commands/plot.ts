import { closeSync, constants, fstatSync, ftruncateSync, openSync, statSync, writeFileSync, type Stats } from 'node:fs';
import { basename, extname } from 'node:path';
import type { Command } from '../command.js';
import { UsageError } from '../usage-error.js';
import { commandLinePath, fileKind, sameFile } from '../files.js';
import { formatCount } from '../format.js';
import { readLog } from '../log/read-log.js';
import { plotData } from '../plot/plot-data.js';
import { renderHtml, renderSvg } from '../plot/render.js';
import { plotSpec } from '../plot/spec.js';
import { progressBar } from '../progress.js';

/** The default output: the log's name with `.svg` for its extension, or with `.plot.svg` where that is `.svg`. */
export function defaultPlotOutput(log: string): string {
  const extension = extname(log);
  const base = log.slice(0, log.length - extension.length);
  return extension.toLowerCase() === '.svg' ? `${base}.plot.svg` : `${base}.svg`;
}

const statOrNull = (path: string) => statSync(path, { throwIfNoEntry: false }) ?? null;

/** Refuses an output that is the log itself, or that is there and not a regular file. */
function checkOutput(output: string, outputStats: Stats | null, log: string, logStats: Stats | null): void {
  if (outputStats === null) return;
  if (logStats !== null && sameFile(outputStats, logStats)) {
    throw new UsageError(`--output: '${output}' is the log being plotted ('${log}'); choose another file`);
  }
  if (!outputStats.isFile())
    throw new UsageError(`--output: '${output}' is ${fileKind(outputStats)}, not a file to write`);
}

// O_NONBLOCK: a FIFO put there since the check fails to open (ENXIO) instead of waiting for a reader.
// No O_TRUNC: the file is emptied only once it is known not to be the log.
const WRITE_FLAGS = constants.O_WRONLY | constants.O_CREAT | (constants.O_NONBLOCK ?? 0);

/** Writes the plot to `output`, checked again on the opened file (it may have changed since). */
function writeOutput(output: string, content: string, log: string): void {
  const fd = openSync(output, WRITE_FLAGS, 0o666);
  try {
    checkOutput(output, fstatSync(fd), log, statOrNull(log));
    ftruncateSync(fd, 0);
    writeFileSync(fd, content);
  } finally {
    closeSync(fd);
  }
}

export const plotCommand: Command = {
  name: 'plot',
  summary: 'draw memory in use over time and allocation sizes of an allocation log (SVG or HTML)',
  help: `Usage: rmmjs plot <log.csv> [-o memory.svg | -o memory.html]

Draws an allocation log (RMM's CSV, from C++, Python or @rmmjs/logging): memory in use over time
and a histogram of allocation sizes, with Vega-Lite. An .svg is rendered here (no browser); an
.html page draws it with vega-embed. The output is never the log itself.

Options:
  -o, --output <file>  the file to write, .svg or .html (default: the log's name with .svg, or
                       with .plot.svg for a log named .svg)
  -h, --help           this help`,
  options: { output: { type: 'string', short: 'o' } },
  positionals: { min: 1, max: 1, names: 'the log file (log.csv)' },
  async run(values, [file], { stdout, stderr }) {
    const output = (values.output as string | undefined) ?? defaultPlotOutput(file);
    commandLinePath(file, 'the log file');
    commandLinePath(output, '--output');
    const format = extname(output).toLowerCase();
    if (format !== '.svg' && format !== '.html') {
      throw new UsageError(`--output: '${output}' must end in .svg or .html`);
    }
    checkOutput(output, statOrNull(output), file, statOrNull(file));
    const progress = progressBar(stderr);
    let log;
    try {
      log = await readLog(file, {
        onProgress: (read, total) => progress.update(`reading ${file}`, read, total, 'bytes'),
      });
    } finally {
      progress.stop();
    }
    const data = plotData(log);
    const spec = plotSpec(log, data);
    const content = format === '.svg' ? await renderSvg(spec) : renderHtml(spec, `Allocation log ${basename(file)}`);
    writeOutput(output, content, file);
    stdout.write(
      `wrote ${output}: memory in use at ${formatCount(data.inUse.length)} points, ${formatCount(data.sizes.length)} allocation size classes\n`,
    );
  },
};
