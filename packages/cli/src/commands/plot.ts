import { writeFileSync } from 'node:fs';
import { basename, extname } from 'node:path';
import type { Command } from '../command.js';
import { UsageError } from '../usage-error.js';
import { formatCount } from '../format.js';
import { readLog } from '../log/read-log.js';
import { plotData } from '../plot/plot-data.js';
import { renderHtml, renderSvg } from '../plot/render.js';
import { plotSpec } from '../plot/spec.js';
import { progressBar } from '../progress.js';

export const plotCommand: Command = {
  name: 'plot',
  summary: 'draw memory in use over time and allocation sizes of an allocation log (SVG or HTML)',
  help: `Usage: rmmjs plot <log.csv> [-o memory.svg | -o memory.html]

Draws an allocation log (RMM's CSV, from C++, Python or @rmmjs/logging): memory in use over time
and a histogram of allocation sizes, with Vega-Lite. An .svg is rendered here (no browser); an
.html page draws it with vega-embed.

Options:
  -o, --output <file>  the file to write, .svg or .html (default: the log's name with .svg)
  -h, --help           this help`,
  options: { output: { type: 'string', short: 'o' } },
  positionals: { min: 1, max: 1, names: 'the log file (log.csv)' },
  async run(values, [file], { stdout, stderr }) {
    const output = (values.output as string | undefined) ?? `${file.slice(0, file.length - extname(file).length)}.svg`;
    const format = extname(output).toLowerCase();
    if (format !== '.svg' && format !== '.html') {
      throw new UsageError(`--output: '${output}' must end in .svg or .html`);
    }
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
    writeFileSync(
      output,
      format === '.svg' ? await renderSvg(spec) : renderHtml(spec, `Allocation log ${basename(file)}`),
    );
    stdout.write(
      `wrote ${output}: memory in use at ${formatCount(data.inUse.length)} points, ${formatCount(data.sizes.length)} allocation size classes\n`,
    );
  },
};
