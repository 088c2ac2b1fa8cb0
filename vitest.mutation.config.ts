import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

// The suite StrykerJS runs against each mutant: only the test files that exercise the
// module under mutation (SVC_MUTATION_TESTS, set by test/mutation/run.mjs), so a
// mutant costs seconds, not a whole `npm test`. Tests that spawn bin/svc.js run the
// build, which mutants never reach: the files listed call the source in this process.
const files = (process.env.SVC_MUTATION_TESTS ?? '').split(',').filter(Boolean);
if (files.length === 0)
  throw new Error(
    'vitest.mutation.config.ts: SVC_MUTATION_TESTS is empty (run it through `npm run mutation`)',
  );

// Spread, not mergeConfig: merging would append these files to the suite's whole include.
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: files,
    // Stryker counts a mutant that hangs as a timeout (killed); one worker at a time
    // keeps a shared machine usable. A module whose test files restore what they change
    // runs them on one import of the code (SVC_MUTATION_ISOLATE=0, run.mjs's `isolate`):
    // a mutant's run still imports it afresh, so a mutant of its top level is seen.
    maxWorkers: 1,
    isolate: process.env.SVC_MUTATION_ISOLATE !== '0',
    sequence: {},
  },
});
