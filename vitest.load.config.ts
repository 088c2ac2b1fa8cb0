import { defineConfig } from 'vitest/config';

// The load tests: the sandbox's data file under 10,000 requests and a kill -9, the
// listener under 2,000 events from 50 senders and killed during ten bursts, the
// 10,000-request list's memory; and
// the install a user does (npm pack, npm install -g of the packed file, svc demo),
// npm's own work (several seconds of CPU) kept out of npm test's loop.
// One file at a time, so each has the machine to itself.
export default defineConfig({
  test: {
    include: ['test/load/**/*.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    // The run's own temporary folder, removed at its end (test/helpers/temp-root.ts).
    globalSetup: ['test/helpers/temp-root.ts'],
  },
});
