// Runs a snippet in a fresh Node process (for what a process can do only once: load a driver).
import { runInProcess } from '@rmmjs/test-helpers';

export const runNode = (code: string, env: Record<string, string | undefined> = {}, nodeArgs: string[] = []) =>
  runInProcess(code, { env, nodeArgs });
