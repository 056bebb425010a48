// A buffered log loses no rows when the process exits normally with its adaptor still in use.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { underComputeSanitizer } from '@rmmjs/test-helpers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseLog, replayProblems } from './csv.js';
import { runChild } from './run-child.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rmmjs-logging-exit-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const workload = (file: string) => `
  const mr = new logging.LoggingResourceAdaptor(core.getCurrentDeviceResource(), { logFileName: ${JSON.stringify(file)} });
  core.setCurrentDeviceResource(mr);
  // Reachable to the end: a collection before a timer's turn would free unreachable buffers.
  const kept = (globalThis.kept = []);
  for (let i = 0; i < 3000; i++) {
    const buffer = new core.DeviceBuffer({ size: 1 + (i % 500) });
    if (i % 3 === 0) kept.push(buffer); else buffer.free();
  }`;

describe('LoggingResourceAdaptor at process exit', () => {
  // When the script ends, Node frees the buffers still alive as it tears the environment down
  // (logged too); process.exit() leaves them to the driver, which compute-sanitizer's leak check
  // reports as leaks, so those two cases do not run under it.
  it.for([
    ['the script ends', '', 3000],
    ['process.exit(0)', 'process.exit(0);', 2000],
    ['process.exit(3) from a timer', 'setTimeout(() => process.exit(3), 0);', 2000],
  ] as const)('%s: every row is in the file', ([, ending, frees], context) => {
    if (ending !== '' && underComputeSanitizer()) context.skip();
    const file = join(dir, 'log.csv');
    const { status, stderr } = runChild(`${workload(file)}\n${ending}`);
    expect(stderr).toBe('');
    expect(status).toBe(ending.includes('exit(3)') ? 3 : 0);
    const events = parseLog(readFileSync(file, 'utf8'));
    expect(events).toHaveLength(3000 + frees);
    expect(events.filter((e) => e.action === 'free')).toHaveLength(frees);
    expect(replayProblems(events)).toEqual([]);
  });
});
