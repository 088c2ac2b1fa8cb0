import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { defineConfig } from 'vitest/config';

// Where skipBecause (test/helpers/skips.ts) records why a test could not run, for the
// summary test/helpers/skip-report.ts prints; the test processes inherit it.
process.env.SVC_SKIP_REASONS ??= join(tmpdir(), `svc-skips-${process.pid}.jsonl`);

// The files that take longest, on their own, start first: the suite is as long as its
// last file to finish, and a long file started late (vitest's default order puts a
// small file like the README's tour last on a clean clone) is the whole critical path.
// Ordered by each file's time in a whole run (`vitest run --reporter=json`): re-measure
// when a file's tests change shape.
const LONGEST_FIRST = [
  'test/sandbox/panel/panel.browser.test.ts',
  'test/webhooks/sandbox.test.ts',
  'test/readme.test.ts',
  'test/sandbox/datafile.test.ts',
  'test/cli/devolver/plan-concurrent.test.ts',
  'test/config/keyring.test.ts',
  'test/cli/cobro/lote.kill.test.ts',
  'test/output/terminal-matrix.test.ts',
  'test/sandbox/panel/panel-layout.browser.test.ts',
  'test/cli/devolver/lote.test.ts',
  'test/cli/asking.test.ts',
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = LONGEST_FIRST.findIndex((name) => f.moduleId.endsWith(name));
      return i < 0 ? LONGEST_FIRST.length : i;
    };
    return sorted
      .map((f, i) => ({ f, i }))
      .sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i)
      .map((x) => x.f);
  }
}

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
    // CPU-bound on two cores and re-importing vitest, execa and src for each of ~60
    // files was a fifth of it (84 s -> 66 s). Files share no state through modules:
    // each starts its own sandboxes and folders, and the in-process runner
    // (test/helpers/inproc.ts) gives every main() call its own streams and env.
    isolate: false,
    sequence: { sequencer: LongestFirst },
    // vitest's own report, then every skipped test with its reason (CI fails on one it does not expect).
    reporters: ['default', './test/helpers/skip-report.ts'],
    // The run's own temporary folder, removed at its end (test/helpers/temp-root.ts), and
    // one Chromium for the browser test files, launched when the first of them asks.
    globalSetup: ['test/helpers/temp-root.ts', 'test/helpers/chromium-server.ts'],
    // expect.poll waits for what a browser or a server shows next; vitest's 1 s is
    // too short on a loaded 2-core machine (a dashboard row seen 1.2 s after it was
    // made failed a CI run). Still bounded, never a measure of speed.
    expect: { poll: { timeout: 15_000, interval: 50 } },
  },
});
