// Runs the `rmmjs` command as a user does: a fresh node process on the built bin, in this backend's
// environment (RMMJS_DISABLE_CUDA or RMMJS_CUDA_LIBRARY, set by rmmjs-test).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
export const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function rmmjs(
  args: string[],
  {
    env = {},
    cwd,
    timeout = 100_000,
  }: { env?: Record<string, string | undefined>; cwd?: string; timeout?: number } = {},
): CliRun {
  const run = spawnSync(process.execPath, [bin, ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    cwd,
    timeout,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** The lines of some output, without the last empty one. */
export const lines = (text: string) => text.replace(/\n$/, '').split('\n');
