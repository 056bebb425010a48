// The command line itself: help, versions, and what a wrong command line gets (usage on stderr, exit 2).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { commands, main, usage, type Output } from '@rmmjs/cli';
import { lines, rmmjs } from './run-cli.js';

/** Output into strings, for main() in this process. */
function capture(): Output & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    stdout: { write: (text: string) => ((out += text), true) } as unknown as NodeJS.WritableStream,
    stderr: { write: (text: string) => ((err += text), true) } as unknown as NodeJS.WritableStream,
    out: () => out,
    err: () => err,
  };
}

describe('rmmjs', () => {
  it('--help lists every command on stdout and exits 0', () => {
    const run = rmmjs(['--help']);
    expect(run.status).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(usage() + '\n');
    const listed = lines(run.stdout)
      .filter((line) => /^ {2}[a-z]+ {2,}/.test(line))
      .map((line) => line.trim().split(/\s+/)[0]);
    expect(listed).toEqual(['info', 'demo', 'replay', 'plot', 'bench']);
  });

  it('--version prints the package version', () => {
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    const run = rmmjs(['--version']);
    expect([run.status, run.stdout]).toEqual([0, `${version}\n`]);
  });

  it('no command: usage on stderr, exit 2', () => {
    const run = rmmjs([]);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(`rmmjs: no command given\n\n${usage()}\n`);
  });

  it('an unknown command: usage on stderr, exit 2', () => {
    const run = rmmjs(['frobnicate']);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(lines(run.stderr)[0]).toBe("rmmjs: unknown command 'frobnicate'");
    expect(run.stderr).toContain('Usage: rmmjs <command> [options]');
  });

  it("an unknown option: the command's usage on stderr, exit 2", () => {
    const run = rmmjs(['info', '--bogus']);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(lines(run.stderr)[0]).toMatch(/^rmmjs info: Unknown option '--bogus'/);
    expect(run.stderr).toContain('Usage: rmmjs info [--json]');
  });

  it.each(commands.map((c) => c.name))('%s --help prints its usage on stdout, exit 0', async (name) => {
    const output = capture();
    expect(await main([name, '--help'], output)).toBe(0);
    expect(output.err()).toBe('');
    expect(output.out()).toMatch(new RegExp(`^Usage: rmmjs ${name}\\b`));
    expect(output.out()).toBe(commands.find((c) => c.name === name)!.help + '\n');
  });

  it.each([
    [['replay'], 'rmmjs replay: missing the log file (log.csv)', 'Usage: rmmjs replay'],
    [['plot'], 'rmmjs plot: missing the log file (log.csv)', 'Usage: rmmjs plot'],
    [['info', 'extra'], "rmmjs info: unexpected argument 'extra'", 'Usage: rmmjs info'],
    [['replay', 'a.csv', 'b.csv'], "rmmjs replay: unexpected argument 'b.csv'", 'Usage: rmmjs replay'],
    [['replay', 'log.csv', '--size'], "rmmjs replay: Option '--size <value>' argument missing", 'Usage: rmmjs replay'],
    [['demo', '--json'], "rmmjs demo: Unknown option '--json'", 'Usage: rmmjs demo'],
  ])('%j: exit 2 with the message and usage on stderr', async (args, message, help) => {
    const output = capture();
    expect(await main(args, output)).toBe(2);
    expect(output.out()).toBe('');
    expect(lines(output.err())[0].startsWith(message)).toBe(true);
    expect(output.err()).toContain(help);
  });
});
