// Runs a module snippet in a fresh Node process, for what happens once per process (the debug
// logger opens its file when it starts) and at exit. In scope: `core`, `native` (core's
// internals), `logging`, and one variable per entry of `modules` (name -> package).
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { resolveFromPackage } from '@rmmjs/test-helpers';

const url = (file: string) => JSON.stringify(pathToFileURL(file).href);

export function runChild(
  code: string,
  { env = {}, modules = {} }: { env?: Record<string, string | undefined>; modules?: Record<string, string> } = {},
): { status: number | null; stdout: string; stderr: string } {
  const merged: Record<string, string | undefined> = { ...process.env, ...env };
  for (const [key, value] of Object.entries(env)) if (value === undefined) delete merged[key];
  const core = resolveFromPackage('@rmmjs/core');
  const imports = Object.entries({ core: '@rmmjs/core', logging: '@rmmjs/logging', ...modules })
    .map(([name, module]) => `const ${name} = await import(${url(resolveFromPackage(module))});`)
    .join('\n');
  const script = `${imports}
    const { native } = await import(${url(core.replace(/index\.js$/, 'internal.js'))});
    ${code}`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    env: merged as NodeJS.ProcessEnv,
    encoding: 'utf8',
  });
  return { status: run.status, stdout: run.stdout.trim(), stderr: run.stderr };
}
