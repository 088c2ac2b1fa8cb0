// bin/code-cache.cjs: on Node 20 svc keeps V8's code cache of its own bundle itself.
// A code cache is code, so what is checked here is where it may be kept and that a
// rebuilt file never meets the cache of the old one. Each case runs in a child Node
// (install() patches the module loader of its process) on whatever Node runs the suite:
// the loader is used only on Node 20, but what it does is the same on every version.
import { execa } from 'execa';
import { chmodSync, mkdirSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers/cli.js';
import { skipBecause } from '../helpers/skips.js';

const ON_WINDOWS = skipBecause(
  import.meta.url,
  process.platform === 'win32' && 'not on Windows (no POSIX modes or signals there)',
);

const loader = join(ROOT, 'bin', 'code-cache.cjs');

function project() {
  const home = tempDir('svc-code-cache-test-');
  const root = join(home, 'dist');
  const temp = join(home, 'tmp');
  mkdirSync(root);
  mkdirSync(temp);
  const folder = join(temp, `svc-code-cache-${process.getuid!()}`);
  const write = (answer: string) => {
    // Same length whatever the answer's digits: V8 itself would take the old cache.
    writeFileSync(
      join(root, 'a.cjs'),
      `module.exports = () => require('node:path').join('${answer}', require('./b.cjs'));\n`,
    );
    writeFileSync(join(root, 'b.cjs'), `module.exports = 'b';\n`);
  };
  const run = async (env: Record<string, string> = {}) => {
    const script = `require(${JSON.stringify(loader)}).install(${JSON.stringify(root)}); console.log(require(${JSON.stringify(join(root, 'a.cjs'))})());`;
    const r = await execa(process.execPath, ['-e', script], {
      env: { TMPDIR: temp, ...env },
      extendEnv: false,
      reject: false,
    });
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    return r.stdout;
  };
  const cached = () =>
    readdirSync(temp).includes(`svc-code-cache-${process.getuid!()}`)
      ? readdirSync(folder).sort()
      : [];
  return { root, temp, folder, write, run, cached };
}

describe.skipIf(ON_WINDOWS)('svc keeps the code cache of its own bundle (Node 20)', () => {
  it('writes it once, in a folder of its own (0700, files 0600), and uses it after', async () => {
    const p = project();
    p.write('1111');
    expect(await p.run()).toBe('1111/b');
    const first = p.cached();
    expect(first).toHaveLength(2);
    expect(first.every((f) => /^[0-9a-f]{8}-[ab]\.cjs-\d+-\d+-\d+-v[\d.]+-\w+$/.test(f))).toBe(
      true,
    );
    expect(statSync(p.folder).mode & 0o777).toBe(0o700);
    for (const f of first) expect(statSync(join(p.folder, f)).mode & 0o777).toBe(0o600);
    // Dated ten days back: a cache written again would be dated now.
    const tenDaysAgo = new Date(Math.floor((Date.now() - 10 * 86_400_000) / 1000) * 1000); // whole seconds: mtimeMs is a float
    for (const f of first) utimesSync(join(p.folder, f), tenDaysAgo, tenDaysAgo);
    expect(await p.run()).toBe('1111/b');
    // Accepted by V8: not written again (a rejected or missing cache is).
    expect(p.cached()).toEqual(first);
    for (const f of first)
      expect(Math.round(statSync(join(p.folder, f)).mtimeMs)).toBe(tenDaysAgo.getTime());
  });

  it('a rebuilt file of the same length runs its new code, and its old cache goes', async () => {
    const p = project();
    p.write('1111');
    expect(await p.run()).toBe('1111/b');
    const before = p.cached();
    p.write('2222');
    // A build in the same second must still count as new.
    utimesSync(join(p.root, 'a.cjs'), new Date(), new Date(Date.now() + 5_000));
    expect(await p.run()).toBe('2222/b');
    const after = p.cached();
    expect(after).toHaveLength(2);
    expect(after.filter((f) => f.includes('-a.cjs-'))).not.toEqual(
      before.filter((f) => f.includes('-a.cjs-')),
    );
  });

  it('a cache V8 refuses is written again, and the file still runs', async () => {
    const p = project();
    p.write('3333');
    await p.run();
    const a = p.cached().find((f) => f.includes('-a.cjs-'))!;
    writeFileSync(join(p.folder, a), 'not a code cache');
    expect(await p.run()).toBe('3333/b');
    expect(statSync(join(p.folder, a)).size).toBeGreaterThan('not a code cache'.length);
  });

  it('keeps no cache in a folder others can write, or when NODE_DISABLE_COMPILE_CACHE is set', async () => {
    const shared = project();
    shared.write('4444');
    mkdirSync(shared.folder);
    chmodSync(shared.folder, 0o777);
    expect(await shared.run()).toBe('4444/b');
    expect(readdirSync(shared.folder)).toEqual([]);

    const off = project();
    off.write('5555');
    expect(await off.run({ NODE_DISABLE_COMPILE_CACHE: '1' })).toBe('5555/b');
    expect(off.cached()).toEqual([]);
  });
});
