import type { ParseArgsConfig } from 'node:util';

/** Where a command writes: the process's streams, or anything that takes lines (tests). */
export interface Output {
  /** Where results go (`process.stdout` by default). */
  stdout: NodeJS.WritableStream & {
    /** True when it is a terminal. */
    isTTY?: boolean;
  };
  /** Where errors, the usage and progress bars go (`process.stderr` by default). */
  stderr: NodeJS.WritableStream & {
    /** True when it is a terminal: progress bars are drawn only then. */
    isTTY?: boolean;
  };
}

/** A command line's options as `parseArgs` reads them: by name, a string or a boolean for each one given. */
export type OptionValues = Record<string, string | boolean | undefined>;

/** A command of `rmmjs` (`commands` lists them): its name, its help, its options and what it runs. */
export interface Command {
  /** The word after `rmmjs` that runs it, e.g. `replay`. */
  name: string;
  /** One line for `rmmjs --help`. */
  summary: string;
  /** `rmmjs <name> --help`: the synopsis and the options, one per line. */
  help: string;
  /** Its options, as `parseArgs` takes them (`main` adds `--help` to every command). */
  options: NonNullable<ParseArgsConfig['options']>;
  /** How many positional arguments it takes. */
  positionals: {
    /** The fewest; fewer is a usage error (exit code 2). */
    min: number;
    /** The most; more is a usage error (exit code 2). */
    max: number;
    /** What they are, for the message when some are missing, e.g. `the log file (log.csv)`. */
    names: string;
  };
  /** Returns the exit code (0 when it returns nothing). */
  run(values: OptionValues, positionals: string[], output: Output): Promise<number | void>;
}

/** Writes `lines` to a stream, one per line. */
export function writeLines(stream: NodeJS.WritableStream, lines: string[]): void {
  if (lines.length > 0) stream.write(lines.join('\n') + '\n');
}
