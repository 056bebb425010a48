// Runs a snippet in a fresh Node process (for what a process can do only once: load a driver).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const coreEntry = fileURLToPath(new URL('../dist/index.js', import.meta.url));

export function runNode(
  code: string,
  env: Record<string, string | undefined> = {},
  nodeArgs: string[] = [],
): { status: number | null; stdout: string; stderr: string } {
  const merged: Record<string, string | undefined> = { ...process.env, ...env };
  for (const [key, value] of Object.entries(env)) if (value === undefined) delete merged[key];
  const script = `const core = await import(${JSON.stringify(coreEntry)});\n${code}`;
  const run = spawnSync(process.execPath, [...nodeArgs, '--input-type=module', '-e', script], {
    env: merged as NodeJS.ProcessEnv,
    encoding: 'utf8',
  });
  return { status: run.status, stdout: run.stdout.trim(), stderr: run.stderr };
}
