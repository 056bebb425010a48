// What workers.js exports: code on another thread or in a fresh process.
/** The file URL of a workspace package (or one of its exports) as the package under test resolves it. */
export function packageUrl(name: string): string;
/**
 * Runs the worker module at `url` (it ends with `answer(work)` from `@rmmjs/test-helpers/worker`)
 * with `workerData`; resolves with what its work returns once the worker is gone, rejects with
 * `Error("<code>: <message>")` when it throws, fails to load or exits without answering.
 */
export function runWorker(url: URL | string, options?: { workerData?: unknown }): Promise<any>;
export interface ProcessRun {
  status: number | null;
  /** The signal that ended it (null when it exited), e.g. 'SIGKILL' after `timeout`. */
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** With `debugLog`: the text of the debug log ('' when nothing was logged). */
  log?: string;
}
/**
 * spawnSync with text output; a process still running after `timeout` ms (a hang) has its threads'
 * native stacks written to `stderr` (gdb, where installed) before it is killed (SIGKILL).
 */
export function spawnWithHangReport(
  command: string,
  args: string[],
  options?: { env?: NodeJS.ProcessEnv; timeout?: number },
): { status: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string; error?: Error };

/**
 * Runs the child script module at `script` (its URL) in a fresh `node` with `nodeArgs`, with `args`
 * as its `process.argv.slice(2)`.
 */
export function runInProcess(
  script: URL,
  options?: {
    /** What the module gets as `process.argv.slice(2)`. */
    args?: string[];
    env?: Record<string, string | undefined>;
    nodeArgs?: string[];
    debugLog?: boolean;
    /** Milliseconds before a process still running is killed (SIGKILL). */
    timeout?: number;
  },
): ProcessRun;
