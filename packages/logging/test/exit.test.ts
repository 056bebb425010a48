// A buffered log loses no rows when the process exits normally with its adaptor still in use.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInProcess, underComputeSanitizer } from '@rmmjs/test-helpers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseLog, replayProblems } from './csv.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rmmjs-logging-exit-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('LoggingResourceAdaptor at process exit', () => {
  // When the script ends, Node frees the buffers still alive as it tears the environment down
  // (logged too); process.exit() leaves them to the driver, which compute-sanitizer's leak check
  // reports as leaks, so those two cases do not run under it.
  it.for([
    ['the script ends', 'end', 3000],
    ['process.exit(0)', 'exit', 2000],
    ['process.exit(3) from a timer', 'exit-from-timer', 2000],
  ] as const)('%s: every row is in the file', ([, ending, frees], context) => {
    if (ending !== 'end' && underComputeSanitizer()) context.skip();
    const file = join(dir, 'log.csv');
    const { status, stderr } = runInProcess(new URL('./children/exits-logging.js', import.meta.url), {
      args: [file, ending],
    });
    expect(stderr).toBe('');
    expect(status).toBe(ending === 'exit-from-timer' ? 3 : 0);
    const events = parseLog(readFileSync(file, 'utf8'));
    expect(events).toHaveLength(3000 + frees);
    expect(events.filter((e) => e.action === 'free')).toHaveLength(frees);
    expect(replayProblems(events)).toEqual([]);
  });
});
