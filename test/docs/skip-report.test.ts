// The skip report of CONTRIBUTING.md (test/helpers/skip-report.ts): a run lists every
// skipped test with the reason it could not run, and with SVC_FAIL_ON_SKIP=1 (.ci/run)
// a skip that SVC_EXPECTED_SKIPS does not name fails the run. Run here on a suite of
// two tests, one of them skipped through skipBecause, as vitest runs the real one.
import { execa } from 'execa';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers/cli.js';

const dir = tempDir('svc-skip-report-');
writeFileSync(
  join(dir, 'tool.test.ts'),
  `import { expect, it } from 'vitest';
import { skipBecause } from ${JSON.stringify(join(ROOT, 'test/helpers/skips.ts'))};
it.skipIf(skipBecause(import.meta.url, 'needs the tool, missing here'))('uses the tool', () => {
  expect(1).toBe(2);
});
it('runs without it', () => {
  expect(1).toBe(1);
});
`,
);
writeFileSync(
  join(dir, 'vitest.config.mjs'),
  `export default {
  test: {
    include: ['tool.test.ts'],
    reporters: ['default', ${JSON.stringify(join(ROOT, 'test/helpers/skip-report.ts'))}],
  },
};
`,
);

async function suite(env: Record<string, string>) {
  const r = await execa(
    process.execPath,
    [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--config', 'vitest.config.mjs'],
    {
      cwd: dir,
      reject: false,
      // The outer run's own settings stay out: this suite decides what it expects.
      env: {
        SVC_SKIP_REASONS: join(dir, 'reasons.jsonl'),
        SVC_FAIL_ON_SKIP: '',
        SVC_EXPECTED_SKIPS: '',
        NO_COLOR: '1',
        ...env,
      },
    },
  );
  return { code: r.exitCode, stdout: String(r.stdout) };
}

describe('the skip report', () => {
  it('a skipped test is listed with its reason; with SVC_FAIL_ON_SKIP=1 it passes only when SVC_EXPECTED_SKIPS names it', async () => {
    const listed = 'tool.test.ts > uses the tool: needs the tool, missing here';
    const expected = await suite({
      SVC_FAIL_ON_SKIP: '1',
      SVC_EXPECTED_SKIPS: 'missing here|needs root',
    });
    expect(expected.code, expected.stdout).toBe(0);
    expect(expected.stdout).toContain(`skipped, not passed (1):\n   ${listed}`);
    const unexpected = await suite({ SVC_FAIL_ON_SKIP: '1', SVC_EXPECTED_SKIPS: 'needs root' });
    expect(unexpected.code, unexpected.stdout).toBe(1);
    expect(unexpected.stdout).toContain(listed);
    expect(unexpected.stdout).toContain(
      'SVC_FAIL_ON_SKIP=1: 1 skipped test this machine was expected to run',
    );
  });
});
