// The command lines of the repository's scripts: node:util's parseArgs over the options a script
// declares, and one message for each mistake (an unknown option, an option without its value, a
// value given to a flag, an argument the script does not take, a value that is not the number it
// should be), printed as `<script>: <why>` before the script exits with status 2 (as `rmmjs` does).
//
// parseArgs runs with strict: false and its tokens are checked here, so that the messages are the
// scripts' own and the same on every Node version.
import { parseArgs } from 'node:util';

/** A mistake in a command line. */
export class UsageError extends Error {}

/**
 * The options and positional arguments of `args` (default: this process's), or, for a mistake,
 * `<script>: <why>` on stderr and exit status 2.
 *
 * `options`: `{ name: spec }`, where spec is `{ type: 'boolean' }` or `{ type: 'string', value:
 * 'FILE' }` (`value` names the value in messages), with `multiple: true` for an option that may
 * repeat (an array), `number: { min, max, whole }` for a number (`--runs 3` is 3), `list: { min,
 * max, whole }` for numbers separated by commas (`--chunks 4,8` is [4, 8]), and `internal: true`
 * for one that only the script passes to its own child processes (messages do not list it).
 * `positionals`: `{ what, max }` when the script takes positional arguments (at most `max`,
 * default any number; `what` says what they are in messages: `'one list of packages'`), else
 * undefined.
 */
export function parseCommandLine(script, options, { args = process.argv.slice(2), positionals } = {}) {
  try {
    return parseOptions(options, args, positionals);
  } catch (error) {
    if (error instanceof UsageError) exitWithUsage(script, error.message);
    throw error;
  }
}

/** Prints `<script>: <message>` to stderr and exits with status 2: a mistake the parser cannot see. */
export function exitWithUsage(script, message) {
  console.error(`${script}: ${message}`);
  process.exit(2);
}

/** `parseCommandLine` that throws a UsageError for a mistake. */
export function parseOptions(options, args, positionals) {
  const { tokens } = parseArgs({
    args,
    options: Object.fromEntries(Object.entries(options).map(([name, { type }]) => [name, { type }])),
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const parsed = { values: {}, positionals: [] };
  for (const token of tokens) {
    if (token.kind === 'option-terminator') continue;
    if (token.kind === 'positional') {
      if (positionals === undefined) throw new UsageError(`unexpected argument ${token.value} (${usage(options)})`);
      if (parsed.positionals.length === (positionals.max ?? Infinity)) {
        throw new UsageError(`unexpected argument ${token.value} (it takes ${positionals.what})`);
      }
      parsed.positionals.push(token.value);
      continue;
    }
    const option = token.rawName.startsWith('--') ? options[token.name] : undefined;
    if (option === undefined) throw new UsageError(`unknown option ${token.rawName} (${usage(options)})`);
    if (option.type === 'boolean') {
      if (token.value !== undefined) throw new UsageError(`${token.rawName} takes no value`);
      parsed.values[token.name] = true;
      continue;
    }
    // Without strict, parseArgs takes the next argument as the value, even another option.
    if (token.value === undefined || (!token.inlineValue && token.value.startsWith('--'))) {
      throw new UsageError(`${token.rawName} needs a value (${token.rawName} ${option.value})`);
    }
    const value = valueOf(token.rawName, token.value, option);
    if (option.multiple) (parsed.values[token.name] ??= []).push(value);
    else parsed.values[token.name] = value;
  }
  return parsed;
}

function valueOf(flag, text, { number, list }) {
  const rule = number ?? list;
  if (rule === undefined) return text;
  const values = (list ? text.split(',') : [text]).map((part) => (part.trim() === '' ? NaN : Number(part)));
  if (values.every((value) => fits(value, rule))) return list ? values : values[0];
  throw new UsageError(
    `${flag} takes ${list ? `${kind(rule, true)} separated by commas` : kind(rule, false)}, not ${text}`,
  );
}

function fits(value, { min = -Infinity, max = Infinity, whole = false }) {
  return Number.isFinite(value) && value >= min && value <= max && (!whole || Number.isInteger(value));
}

function kind({ min = -Infinity, max = Infinity, whole = false }, plural) {
  const what = whole ? (plural ? 'whole numbers' : 'a whole number') : plural ? 'numbers' : 'a number';
  if (min === -Infinity && max === Infinity) return what;
  if (max === Infinity) return `${what} >= ${min}`;
  if (min === -Infinity) return `${what} <= ${max}`;
  return `${what} from ${min} to ${max}`;
}

/** The options a script takes, as messages list them: `options: --quick, --runs N, --json FILE`. */
function usage(options) {
  const names = Object.entries(options)
    .filter(([, { internal }]) => !internal)
    .map(([name, { type, value }]) => `--${name}${type === 'string' ? ` ${value}` : ''}`);
  return names.length === 0 ? 'it takes no options' : `options: ${names.join(', ')}`;
}
