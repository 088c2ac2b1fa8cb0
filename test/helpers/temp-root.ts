// vitest's globalSetup: the run's own temporary folder. Every folder a test makes with
// tempDir() (test/helpers/cli.ts) goes under it, through SVC_TEST_TMPDIR, which the
// workers inherit; it is removed when the run ends. Before it, each run left about
// 5,000 folders in /tmp (515,253 entries after a day of runs on one machine), and making
// or removing a folder there had become slow. TMPDIR itself stays as it is: the svc
// processes a test starts keep their code cache (bin/code-cache.cjs) where svc keeps it
// for its users, warm from one run to the next, instead of compiling cold in a new folder.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What is mounted under `root` (a test's bind mount or tmpfs a failed run did not undo), deepest first. */
function mountsUnder(root: string): string[] {
  let table = '';
  try {
    table = readFileSync('/proc/self/mounts', 'utf8');
  } catch {
    return [];
  }
  const unescape = (path: string) =>
    path.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
  return table
    .split('\n')
    .map((line) => unescape(line.split(' ')[1] ?? ''))
    .filter((path) => path.startsWith(`${root}/`))
    .sort((a, b) => b.length - a.length);
}

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'svc-test-run-'));
  process.env.SVC_TEST_TMPDIR = root;
  return () => {
    delete process.env.SVC_TEST_TMPDIR;
    for (const mount of mountsUnder(root)) {
      try {
        execFileSync('umount', [mount], { stdio: 'pipe' });
      } catch (err) {
        console.log(
          `the run's temporary folder: could not unmount ${mount} (${String(err).split('\n')[0]})`,
        );
      }
    }
    try {
      rmSync(root, { recursive: true, force: true, maxRetries: 3 });
    } catch (err) {
      console.log(
        `the run's temporary folder ${root} was not removed: ${String(err).split('\n')[0]}`,
      );
    }
  };
}
