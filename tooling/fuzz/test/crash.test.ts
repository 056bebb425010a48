// The parent's side: a child that crashes is reported with the seed, the run and the commands,
// shrunk to the one that crashes (a model that aborts the process stands in for a native crash).
import { describe, expect, it } from 'vitest';
import { fuzz } from '../src/parent.js';

// The parent's logic is the same on every backend: host mode only.
describe.runIf((process.env.RMMJS_TEST_BACKEND ?? 'host') === 'host')('a crash in the fuzz loop', () => {
  // The seed fixes how many runs shrinking takes (about 4 s in all on an idle machine); its deadline
  // is far out, so that a loaded machine does not stop it before the one command is left. The test
  // runs synchronously: its timeout only judges it afterwards, above the child's 120 s and the 300 s.
  it('is reported with the seed, the run and the shrunk commands', { timeout: 600_000 }, () => {
    const result = fuzz({ seed: 42, calls: 2000, timeoutMs: 120_000, shrinkMs: 300_000, crashOn: 'new Stream' });
    expect(result.failure).toMatch(/^a crash: killed by SIGABRT \(repeat with RMMJS_FUZZ_SEED=42\)/);
    expect(result.failure).toMatch(/in the run at seed \d+, path \d+/);
    expect(result.failure).toMatch(/shrunk: 1 of its \d+ commands still crash/);
    expect(result.failure).toMatch(/\n {2}new Stream\(/);
  });
});
