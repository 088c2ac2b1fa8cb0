import { defineConfig } from 'vitest/config';

// End-to-end tests spawn the built CLI and sandboxes on port 0; two cores in CI,
// so keep parallelism modest and timeouts generous (no test asserts on time).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 4,
  },
});
