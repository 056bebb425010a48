// Runs a module snippet in a fresh Node process (test-helpers' runInProcess), for what happens once
// per process (the debug logger opens its file when it starts) and at exit. In scope: `core`,
// `native` (core's internals), `logging`, and one variable per entry of `modules` (name -> package).
import { runInProcess } from '@rmmjs/test-helpers';

export function runChild(
  code: string,
  { env = {}, modules = {} }: { env?: Record<string, string | undefined>; modules?: Record<string, string> } = {},
): { status: number | null; stdout: string; stderr: string } {
  return runInProcess(`const { native } = coreInternal;\n${code}`, {
    env,
    modules: { logging: '@rmmjs/logging', coreInternal: '@rmmjs/core/internal', ...modules },
  });
}
