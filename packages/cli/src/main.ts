import { parseArgs } from 'node:util';
import { RMMError } from '@rmmjs/core';
import { invalidArgType } from '@rmmjs/core/internal';
import type { Command, Output } from './command.js';
import { UsageError } from './usage-error.js';
import { benchCommand } from './commands/bench.js';
import { demoCommand } from './commands/demo.js';
import { infoCommand } from './commands/info.js';
import { plotCommand } from './commands/plot.js';
import { replayCommand } from './commands/replay.js';
import { validateStrings, validateWritable } from './validate.js';
import { packageVersion } from './version.js';

/** The commands of `rmmjs`, in the order `rmmjs --help` lists them. */
export const commands: Command[] = [infoCommand, demoCommand, replayCommand, plotCommand, benchCommand];

/** The text of `rmmjs --help`: the synopsis, each command's summary and the global options. */
export function usage(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return `Usage: rmmjs <command> [options]

The RAPIDS Memory Manager for Node.js, from the command line.

Commands:
${commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n')}

Options:
  -h, --help     this help; \`rmmjs <command> --help\` for a command's
  -v, --version  the version`;
}

/** Where the command writes: the streams themselves (read once), each with a `write` method. */
function validateOutput(output: unknown): Output {
  if (output === null || typeof output !== 'object') throw invalidArgType('output', 'of type object', output);
  const { stdout, stderr } = output as Partial<Output>;
  return { stdout: validateWritable(stdout, 'output.stdout'), stderr: validateWritable(stderr, 'output.stderr') };
}

/** Node's parseArgs errors are the user's (ERR_PARSE_ARGS_*). */
function isParseArgsError(error: unknown): error is Error {
  return error instanceof Error && String((error as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS_');
}

function fail(output: Output, message: string, help: string): number {
  output.stderr.write(`${message}\n\n${help}\n`);
  return 2;
}

/**
 * Runs `rmmjs <argv>` and returns the exit code: 0, 1 when the command failed (the error on
 * stderr), 2 for a wrong command line (the usage on stderr).
 */
export async function main(argv: string[], output: Output = process): Promise<number> {
  [argv, output] = [validateStrings(argv, 'argv'), validateOutput(output)];
  const [name, ...rest] = argv;
  if (name === undefined) return fail(output, 'rmmjs: no command given', usage());
  if (name === '-h' || name === '--help' || name === 'help') {
    output.stdout.write(usage() + '\n');
    return 0;
  }
  if (name === '-v' || name === '--version') {
    output.stdout.write(packageVersion() + '\n');
    return 0;
  }
  const command = commands.find((c) => c.name === name);
  if (command === undefined) return fail(output, `rmmjs: unknown command '${name}'`, usage());

  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: rest,
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    }) as { values: Record<string, string | boolean | undefined>; positionals: string[] });
  } catch (error) {
    if (isParseArgsError(error)) return fail(output, `rmmjs ${name}: ${error.message}`, command.help);
    throw error;
  }
  if (values.help) {
    output.stdout.write(command.help + '\n');
    return 0;
  }
  const { min, max, names } = command.positionals;
  if (positionals.length < min) return fail(output, `rmmjs ${name}: missing ${names}`, command.help);
  if (positionals.length > max) {
    return fail(output, `rmmjs ${name}: unexpected argument '${positionals[max]}'`, command.help);
  }
  try {
    return (await command.run(values, positionals, output)) ?? 0;
  } catch (error) {
    if (error instanceof UsageError) return fail(output, `rmmjs ${name}: ${error.message}`, command.help);
    output.stderr.write(`rmmjs ${name}: ${describeError(error)}\n`);
    return 1;
  }
}

/** The message (with the code of rmmjs's errors); the stack only for errors without a code (bugs). */
function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error instanceof RMMError) return `${error.message} (${error.code})`;
  if (typeof (error as { code?: unknown }).code === 'string') return error.message;
  return error.stack ?? error.message;
}
