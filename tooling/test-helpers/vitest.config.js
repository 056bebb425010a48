// The vitest configuration every package's suite runs with (rmmjs-test passes it).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const backend = process.env.RMMJS_TEST_BACKEND ?? 'host';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    setupFiles: [fileURLToPath(new URL('./setup.js', import.meta.url))],
    testTimeout: backend === 'gpu' ? 120_000 : 30_000,
    hookTimeout: 60_000,
  },
});
