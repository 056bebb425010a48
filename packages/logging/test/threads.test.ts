// Rows from worker threads (through the process-wide registry) and from native threads, in one
// file, whole and in an order a replay can follow.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getCurrentDeviceResource, setCurrentDeviceResource } from '@rmmjs/core';
import { LoggingResourceAdaptor } from '@rmmjs/logging';
import { nativeThreadsWorkload } from '@rmmjs/test-addon';
import { runWorker } from '@rmmjs/test-helpers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseLog, replayProblems } from './csv.js';

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rmmjs-logging-threads-'));
  file = join(dir, 'log.csv');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('LoggingResourceAdaptor and threads', () => {
  it('worker threads log through the current resource, each row with its thread id', async () => {
    const mr = new LoggingResourceAdaptor(getCurrentDeviceResource(), { logFileName: file });
    const previous = setCurrentDeviceResource(mr);
    try {
      const results = await Promise.all([0, 1, 2].map(() => runWorker(new URL('./workers/logs.js', import.meta.url))));
      expect(results).toEqual([
        [true, file],
        [true, file],
        [true, file],
      ]);
    } finally {
      setCurrentDeviceResource(previous);
    }
    mr.flush();
    const events = parseLog(readFileSync(file, 'utf8'));
    expect(events).toHaveLength(600);
    const threads = new Set(events.map((e) => e.thread));
    expect(threads.size).toBe(3);
    expect(threads.has(process.pid)).toBe(false);
    for (const thread of threads) {
      const own = events.filter((e) => e.thread === thread);
      expect(own.map((e) => e.size)).toEqual([
        ...Array.from({ length: 100 }, (_, i) => 100 + i),
        ...Array.from({ length: 100 }, (_, i) => 100 + i),
      ]);
    }
    expect(replayProblems(events)).toEqual([]);
  });

  it('native threads (no JavaScript) log too; a free never comes before its allocation', async () => {
    const mr = new LoggingResourceAdaptor(getCurrentDeviceResource(), { logFileName: file });
    const result = nativeThreadsWorkload(mr, {
      threads: 4,
      iterations: 5000,
      minBytes: 1,
      maxBytes: 4096,
      maxLive: 16,
    });
    expect(result.errors).toEqual([]);
    mr.flush();
    const events = parseLog(readFileSync(file, 'utf8'));
    expect(events).toHaveLength(result.operations);
    expect(events.filter((e) => e.action === 'allocate')).toHaveLength(result.operations / 2);
    const threads = new Set(events.map((e) => e.thread));
    expect(threads.size).toBe(4);
    expect(threads.has(process.pid)).toBe(false);
    expect(replayProblems(events)).toEqual([]);
  });
});
