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
    // A worker keeps its loaded modules from one test file to the next: the suite is
    // CPU-bound on two cores and re-importing vitest, execa and src for each of ~50
    // files was a fifth of it (84 s -> 66 s). Files share no state through modules:
    // each starts its own sandboxes and folders, and the in-process runner
    // (test/helpers/inproc.ts) gives every main() call its own streams and env.
    isolate: false,
  },
});
