// svc's one lock module (src/lock.ts): who holds a lock, and when a lock is stale. A
// holder svc cannot see (another PID namespace, boot or host) is never taken for dead;
// one of this machine whose process is gone is taken over; the lock folder is the
// user's own and does not follow TMPDIR; a copy and a hard link meet on one lock.
import { execa } from 'execa';
import {
  copyFileSync,
  existsSync,
  linkSync,
  readFileSync,
  readlinkSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lockFolder, lockPathsOf, tryLock, visible } from '../../src/lock.js';
import { tempDir } from '../helpers/cli.js';

const gonePid = async () =>
  Number((await execa('node', ['-e', 'process.stdout.write(String(process.pid))'])).stdout);
const ours = (() => {
  const read = (f: () => string) => {
    try {
      return f().trim();
    } catch {
      return undefined;
    }
  };
  return {
    boot: read(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8')),
    pidns: read(() => readlinkSync('/proc/self/ns/pid')),
  };
})();

/** A lock file at a fresh path holding `holder`; what tryLock makes of it. */
function attempt(holder: unknown): { took: boolean; path: string } {
  const path = join(tempDir('svc-lock-'), 'x.lock');
  writeFileSync(path, typeof holder === 'string' ? holder : JSON.stringify(holder));
  const r = tryLock([path]);
  if ('release' in r) {
    r.release();
    return { took: true, path };
  }
  return { took: false, path };
}

describe('src/lock.ts', () => {
  it('a holder of this machine, boot and PID namespace whose process is gone: taken over', async () => {
    const pid = await gonePid();
    expect(attempt({ pid, host: hostname(), ...ours, desde: 'x' }).took).toBe(true);
    // As older svc wrote them: without boot and namespace, and a bare pid (the sandbox's).
    expect(attempt({ pid, host: hostname(), desde: 'x' }).took).toBe(true);
    expect(attempt(`${pid}\n`).took).toBe(true);
  });

  it.each([
    ['another PID namespace (a container)', { pidns: 'pid:[1]' }],
    ['another boot', { boot: '00000000-0000-0000-0000-000000000000' }],
    ['another host', { host: 'otra-maquina.example' }],
  ])('a holder in %s is never judged dead: the lock stays', async (_n, where) => {
    const holder = { pid: await gonePid(), host: hostname(), ...ours, desde: 'x', ...where };
    expect(visible(holder)).toBe(false);
    const { took, path } = attempt(holder);
    expect(took).toBe(false);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual(holder);
  });

  it('a live holder keeps its lock; a lock with no holder in it is respected while new', () => {
    expect(attempt({ pid: process.pid, host: hostname(), ...ours, desde: 'x' }).took).toBe(false);
    expect(attempt('').took).toBe(false);
  });

  it('all or none: one busy lock file leaves the others untouched', () => {
    const dir = tempDir('svc-lock-');
    const [a, b] = [join(dir, 'a.lock'), join(dir, 'b.lock')];
    const first = tryLock([b]);
    expect('release' in first).toBe(true);
    expect('busy' in tryLock([a, b])).toBe(true);
    expect(existsSync(a)).toBe(false);
    if ('release' in first) first.release();
    const both = tryLock([a, b]);
    expect('release' in both && both.paths).toEqual([a, b]);
    if ('release' in both) both.release();
    expect([existsSync(a), existsSync(b)]).toEqual([false, false]);
  });

  it('the lock folder is the user’s own and does not follow TMPDIR', () => {
    const before = lockFolder();
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = tempDir('svc-otro-tmp-');
    try {
      expect(lockFolder()).toBe(before);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
  });

  it('a copy shares the lock of its digest, a hard link the lock of its inode', () => {
    const dir = tempDir('svc-lock-');
    const file = join(dir, 'plan.json');
    writeFileSync(file, '{}');
    const copy = join(tempDir('svc-lock-'), 'copia.json');
    copyFileSync(file, copy);
    const link = join(tempDir('svc-lock-'), 'enlace.json');
    linkSync(file, link);
    const [p, c, l] = [file, copy, link].map((f) => lockPathsOf(f, 'plan', 'sha256:ab12'));
    expect(p!.filter((x) => c!.includes(x))).toEqual([join(lockFolder(), 'plan-ab12.lock')]);
    expect(p!.filter((x) => l!.includes(x))).toHaveLength(2);
    const held = tryLock(p!);
    expect('busy' in tryLock(c!) && 'busy' in tryLock(l!)).toBe(true);
    if ('release' in held) held.release();
  });
});
