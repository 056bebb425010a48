import cliProgress from 'cli-progress';

/** A progress bar on a terminal; nothing at all when the stream is not one (piped, a file, a test). */
export interface Progress {
  /** Shows `done` of `total` under `label` (starts a new bar when the label changes). */
  update(label: string, done: number, total: number, unit?: string): void;
  /** Writes a line to `out` with the bar out of the way (it comes back on the next update). */
  print(out: NodeJS.WritableStream, line: string): void;
  stop(): void;
}

export function progressBar(stream: NodeJS.WritableStream & { isTTY?: boolean }): Progress {
  if (!stream.isTTY) return { update() {}, print: (out, line) => void out.write(line + '\n'), stop() {} };
  const bar = new cliProgress.SingleBar(
    {
      stream: stream as NodeJS.WriteStream,
      format: '{label} [{bar}] {percentage}% {value}/{total} {unit}',
      hideCursor: true,
      clearOnComplete: true,
      barsize: 30,
    },
    cliProgress.Presets.shades_classic,
  );
  let current: string | undefined;
  return {
    update(label, done, total, unit = '') {
      if (label !== current) {
        if (current !== undefined) bar.stop();
        current = label;
        bar.start(total, done, { label, unit });
      } else {
        bar.update(done, { label, unit });
      }
    },
    print(out, line) {
      this.stop();
      out.write(line + '\n');
    },
    stop() {
      if (current !== undefined) bar.stop();
      current = undefined;
    },
  };
}
