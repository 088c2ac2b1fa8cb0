// Why a test cannot run on this machine, written down where the run's summary finds it
// (test/helpers/skip-report.ts): a skipped test is listed with its reason, never
// counted as passed, and CI (SVC_FAIL_ON_SKIP=1) fails on a skip it does not expect.
import { appendFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * True when the tests it guards cannot run here: `reason` says why (false, null or
 * undefined: they run). Use as `it.skipIf(skipBecause(import.meta.url, !ok && 'why'))`.
 */
export function skipBecause(file: string, reason: string | false | null | undefined): boolean {
  if (!reason) return false;
  const log = process.env.SVC_SKIP_REASONS;
  if (log) appendFileSync(log, `${JSON.stringify({ file: fileURLToPath(file), reason })}\n`);
  return true;
}
