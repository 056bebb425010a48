// The vitest configuration every package's suite runs with (rmmjs-test passes it).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // The suites' `@rmmjs/test-helpers` is suite.ts: index.js and the conformance suite, which is
    // TypeScript and so only for vitest. Anything else (a child process, a worker) gets index.js.
    alias: [{ find: /^@rmmjs\/test-helpers$/, replacement: fileURLToPath(new URL('./suite.ts', import.meta.url)) }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // A package's files share their worker processes, one after another: a fresh process per
    // file cost 1-3 s of start-up each. setup.js collects what the files before dropped before
    // each file starts.
    pool: 'forks',
    isolate: false,
    setupFiles: [fileURLToPath(new URL('./setup.js', import.meta.url))],
    // Only a guard against hangs: on a loaded machine (turbo runs the packages at once) a test
    // that takes 3 s alone, such as a 128 MiB host round trip bound by page faults, took 65 s.
    testTimeout: 300_000,
    hookTimeout: 120_000,
  },
});
