import { defineConfig } from 'vitest/config';

// End-to-end tests spawn the built CLI and sandboxes on port 0; two cores in CI,
// so keep parallelism modest and timeouts generous (no test asserts on time).
// The load tests (test/load, minutes of fsynced writes and thousands of events)
// run apart: `npm run test:load`, which .ci/run runs after `npm test`.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/load/**', '**/node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 4,
  },
});
