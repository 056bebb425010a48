// Garbage collection is the fallback, and dropping references in any order is safe.
import { runInProcess } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';
import { probePath } from './probe.js';

const child = (name: string) => new URL(`./children/${name}.js`, import.meta.url);

describe('lifetime', () => {
  it('unreachable buffers are freed by the collector', () => {
    const run = runInProcess(child('collects-buffers'), { args: [probePath], nodeArgs: ['--expose-gc'] });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('true true');
  });

  it('resources, streams and buffers can be dropped in any order', () => {
    const run = runInProcess(child('drops-in-any-order'), { nodeArgs: ['--expose-gc'] });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('1,2,3\nok');
  });
});
