// `rmmjs plot`: memory in use over time and allocation sizes, rendered by Vega-Lite to SVG (and PNG to check).
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Resvg } from '@resvg/resvg-js';
import { afterAll, describe, expect, it } from 'vitest';
import { backend } from '@rmmjs/test-helpers';
import { MAX_POINTS, parseLog, plotData, plotSpec, renderHtml, renderSvg } from '@rmmjs/cli';
import { threadedLog } from './logs.js';
import { fixture, lines, rmmjs } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'rmmjs-cli-plot-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const golden = () => parseLog(readFileSync(fixture('rmm-cpp.csv'), 'utf8'), 'rmm-cpp.csv');

/** The text of each `<text>` element of a group of the given class (Vega's SVG: one group per mark). */
function texts(svg: string, role: string): string[] {
  const out: string[] = [];
  for (const group of svg.matchAll(new RegExp(`<g class="[^"]*${role}[^"]*"[^>]*>(.*?)</g>`, 'gs'))) {
    for (const text of group[1].matchAll(/<text[^>]*>([^<]*)<\/text>/g)) out.push(text[1]);
  }
  return out;
}

describe(`rmmjs plot (${backend()})`, () => {
  it('computes memory in use after each event and the allocation size classes', () => {
    const data = plotData(golden());
    expect(data.inUse).toEqual([
      { time: 0, bytes: 0 },
      { time: 0, bytes: 1000 },
      { time: 500, bytes: 5096 },
      { time: 1250, bytes: 1053672 },
      { time: 2500, bytes: 1052672 },
      { time: 3000, bytes: 1052928 },
      { time: 3500, bytes: 1048832 },
      { time: 4000, bytes: 256 },
      { time: 4500, bytes: 2000256 },
      { time: 5000, bytes: 256 },
      { time: 5500, bytes: 768 },
    ]);
    expect(data.thinned).toBe(false);
    expect([data.peakBytes, data.durationUs]).toEqual([2000256, 5500]);
    // 256 B up to 2 MiB: every power of two, empty classes too.
    expect(data.sizes.map((c) => [c.upTo, c.count, c.bytes])).toEqual([
      [256, 1, 256],
      [512, 1, 512],
      [1024, 1, 1000],
      [2048, 0, 0],
      [4096, 1, 4096],
      ...[8192, 16384, 32768, 65536, 131072, 262144, 524288].map((upTo) => [upTo, 0, 0]),
      [1048576, 1, 1048576],
      [2097152, 1, 2000000],
    ]);
  });

  it('thins a long log to MAX_POINTS and keeps its peak and its lowest points', () => {
    const log = parseLog(threadedLog({ threads: 2, events: 20_000, maxLive: 200 }));
    const data = plotData(log);
    expect(data.thinned).toBe(true);
    expect(data.inUse.length).toBeLessThanOrEqual(MAX_POINTS);
    expect(data.inUse.length).toBeGreaterThan(MAX_POINTS / 2);
    expect(Math.max(...data.inUse.map((p) => p.bytes))).toBe(log.peakBytes);
    expect(data.inUse[0]).toEqual({ time: 0, bytes: 0 });
    const times = data.inUse.map((p) => p.time);
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it('renders an SVG with the area, the bars, the axes and their titles', async () => {
    const svg = await renderSvg(plotSpec(golden()));
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg.match(/class="mark-area role-mark/g)).toHaveLength(1);
    const bars = svg.match(/<g class="mark-rect role-mark[^"]*"[^>]*>(.*?)<\/g>/s)![1];
    expect(bars.match(/<path /g)).toHaveLength(14); // one per size class
    expect(texts(svg, 'role-axis-title')).toEqual([
      'time since the first row (µs)',
      'in use (MiB)',
      'allocation size',
      'allocations',
    ]);
    expect(texts(svg, 'role-title-text')).toEqual(['Memory in use', 'Allocation sizes', 'Allocation log rmm-cpp.csv']);
    expect(texts(svg, 'role-title-subtitle')).toEqual(['peak 1.9 MiB in use; 6 allocations, 4 frees; 3 threads']);
    const sizeLabels = texts(svg, 'role-axis-label').filter((t) => t.startsWith('≤'));
    expect(sizeLabels[0]).toBe('≤ 256 B');
    expect(sizeLabels.at(-1)).toBe('≤ 2 MiB');
    // Renders to a picture (resvg, as an image viewer would).
    const png = new Resvg(svg, { background: 'white' }).render();
    expect([png.width, png.height]).toEqual([
      Number(/width="(\d+)"/.exec(svg)![1]),
      Number(/height="(\d+)"/.exec(svg)![1]),
    ]);
    expect(png.asPng().subarray(1, 4).toString()).toBe('PNG');
  });

  it('an HTML page embeds the spec for vega-embed', () => {
    const spec = plotSpec(golden());
    const html = renderHtml(spec, 'Allocation log <rmm-cpp.csv>');
    expect(html).toContain('<title>Allocation log &lt;rmm-cpp.csv></title>');
    expect(html).toContain('<script src="https://cdn.jsdelivr.net/npm/vega-embed@7"></script>');
    const embedded = /vegaEmbed\('#plot', (.*), \{ actions/.exec(html)![1];
    expect(JSON.parse(embedded)).toEqual(spec);
  });

  it('writes an .svg or an .html, and refuses other extensions (exit 2)', () => {
    const svg = join(dir, 'memory.svg');
    const run = rmmjs(['plot', fixture('rmm-cpp.csv'), '-o', svg]);
    expect(run.stderr).toBe('');
    expect([run.status, run.stdout]).toEqual([
      0,
      `wrote ${svg}: memory in use at 11 points, 14 allocation size classes\n`,
    ]);
    expect(readFileSync(svg, 'utf8')).toMatch(/^<svg .*<\/svg>$/s);

    const html = join(dir, 'memory.html');
    expect(rmmjs(['plot', fixture('rmm-cpp.csv'), '--output', html]).status).toBe(0);
    expect(readFileSync(html, 'utf8')).toMatch(/^<!doctype html>/);

    const png = rmmjs(['plot', fixture('rmm-cpp.csv'), '-o', join(dir, 'memory.png')]);
    expect(png.status).toBe(2);
    expect(lines(png.stderr)[0]).toBe(`rmmjs plot: --output: '${join(dir, 'memory.png')}' must end in .svg or .html`);
    expect(existsSync(join(dir, 'memory.png'))).toBe(false);
  });

  it("without -o writes the log's name with .svg", () => {
    const log = join(dir, 'run.csv');
    writeFileSync(log, readFileSync(fixture('rmm-cpp.csv')));
    expect(rmmjs(['plot', log]).status).toBe(0);
    expect(readFileSync(join(dir, 'run.svg'), 'utf8').startsWith('<svg')).toBe(true);
  });

  it('a log named .svg: without -o the plot goes to .plot.svg, and the log is kept', () => {
    const log = join(dir, 'trace.svg');
    const text = readFileSync(fixture('rmm-cpp.csv'), 'utf8');
    writeFileSync(log, text);
    const run = rmmjs(['plot', log]);
    expect(run.stderr).toBe('');
    expect([run.status, run.stdout]).toEqual([
      0,
      `wrote ${join(dir, 'trace.plot.svg')}: memory in use at 11 points, 14 allocation size classes\n`,
    ]);
    expect(readFileSync(log, 'utf8')).toBe(text);
    expect(readFileSync(join(dir, 'trace.plot.svg'), 'utf8').startsWith('<svg')).toBe(true);
  });

  it('an output that is the log (its path, another spelling, a hard or symbolic link): exit 2, the log kept', () => {
    const log = join(dir, 'kept.svg');
    const text = readFileSync(fixture('rmm-cpp.csv'), 'utf8');
    writeFileSync(log, text);
    linkSync(log, join(dir, 'hard.svg'));
    symlinkSync(log, join(dir, 'soft.svg'));
    mkdirSync(join(dir, 'sub'), { recursive: true });
    for (const output of [log, join(dir, 'sub', '..', 'kept.svg'), join(dir, 'hard.svg'), join(dir, 'soft.svg')]) {
      const run = rmmjs(['plot', log, '-o', output]);
      expect([run.status, run.stdout]).toEqual([2, '']);
      expect(lines(run.stderr)[0]).toBe(
        `rmmjs plot: --output: '${output}' is the log being plotted ('${log}'); choose another file`,
      );
      expect(run.stderr).toContain('Usage: rmmjs plot');
      expect(readFileSync(log, 'utf8')).toBe(text);
    }
    // The same through a symbolic link to the log given as the log.
    const run = rmmjs(['plot', join(dir, 'soft.svg'), '-o', log]);
    expect(run.status).toBe(2);
    expect(readFileSync(log, 'utf8')).toBe(text);
  });

  it('an output that is there and not a file (a directory, a FIFO): exit 2, nothing waits', () => {
    const folder = join(dir, 'folder.svg');
    mkdirSync(folder, { recursive: true });
    const run = rmmjs(['plot', fixture('rmm-cpp.csv'), '-o', folder]);
    expect(run.status).toBe(2);
    expect(lines(run.stderr)[0]).toBe(`rmmjs plot: --output: '${folder}' is a directory, not a file to write`);
    const fifo = join(dir, 'pipe.svg');
    execFileSync('mkfifo', [fifo]);
    const piped = rmmjs(['plot', fixture('rmm-cpp.csv'), '-o', fifo], { timeout: 20_000 });
    expect(piped.status).toBe(2);
    expect(lines(piped.stderr)[0]).toBe(`rmmjs plot: --output: '${fifo}' is a FIFO, not a file to write`);
  });

  it('a bad log: exit 1 with the line, no file written', () => {
    const log = join(dir, 'bad.csv');
    writeFileSync(log, 'Thread,Time,Action,Pointer,Size,Stream\n1,10:00:00.000001,allocate,0x100,ten,0\n');
    const out = join(dir, 'bad.svg');
    const run = rmmjs(['plot', log, '-o', out]);
    expect(run.status).toBe(1);
    expect(run.stderr).toBe(`rmmjs plot: ${log}:2: Size "ten" is not a byte count\n`);
    expect(existsSync(out)).toBe(false);
  });
});
