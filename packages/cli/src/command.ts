import type { ParseArgsConfig } from 'node:util';

/** Where a command writes: the process's streams, or anything that takes lines (tests). */
export interface Output {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

export type OptionValues = Record<string, string | boolean | undefined>;

export interface Command {
  name: string;
  /** One line for `rmmjs --help`. */
  summary: string;
  /** `rmmjs <name> --help`: the synopsis and the options, one per line. */
  help: string;
  options: NonNullable<ParseArgsConfig['options']>;
  /** How many positional arguments it takes. */
  positionals: { min: number; max: number; names: string };
  /** Returns the exit code (0 when it returns nothing). */
  run(values: OptionValues, positionals: string[], output: Output): Promise<number | void>;
}

/** Writes `lines` to a stream, one per line. */
export function writeLines(stream: NodeJS.WritableStream, lines: string[]): void {
  if (lines.length > 0) stream.write(lines.join('\n') + '\n');
}
