// The vitest configuration every package's suite runs with (rmmjs-test passes it).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    setupFiles: [fileURLToPath(new URL('./setup.js', import.meta.url))],
    // Only a guard against hangs: on a loaded machine (turbo runs the packages at once) a test
    // that takes 3 s alone, such as a 128 MiB host round trip bound by page faults, took 65 s.
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
