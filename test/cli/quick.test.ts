// --version and help answered from the build's pages (dist/cli/quick.cjs, help.txt,
// quick.json) must be exactly what main prints: every path, alias and form, against
// main run here from the sources, so a page cannot go stale. A terminal narrower than
// the pages, and anything that is not a plain help request, go to main.
import { execa } from 'execa';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { helpKey, quickAnswer } from '../../src/cli/quick.js';
import { helpPaths } from '../../src/build/quick-pages.js';
import { main } from '../../src/main.js';
import { displayWidth } from '../../src/text.js';
import { VERSION } from '../../src/version.js';
import { BIN, ROOT } from '../helpers/cli.js';
import { svc } from '../helpers/inproc.js';

const built = join(ROOT, 'dist', 'cli');
const piped = { isTTY: false };

describe('quick answers', () => {
  it('every help page, in each form, is what main prints', async () => {
    const paths = helpPaths();
    expect(paths.length).toBeGreaterThan(60);
    expect(paths).toContainEqual(['cobro', 'ls']);
    for (const path of paths) {
      const forms = [
        [...path, '--help'],
        [...path, '-h'],
      ];
      if (path.length === 0) forms.push([], ['help']);
      if (path.length === 1) forms.push(['help', path[0]!]);
      for (const argv of forms) {
        const fromMain = await svc(argv);
        expect(fromMain.exitCode, argv.join(' ')).toBe(0);
        expect(quickAnswer(argv, built, piped), argv.join(' ')).toBe(fromMain.stdout);
      }
    }
  });

  it('--version and -V are the package version', () => {
    expect(quickAnswer(['--version'], built, piped)).toBe(`${VERSION}\n`);
    expect(quickAnswer(['-V'], built, piped)).toBe(`${VERSION}\n`);
  });

  it('leaves to main anything but a plain help request', () => {
    for (const argv of [
      ['cobro', 'ver', '1'],
      ['--json', '--help'],
      ['cobro', '--help', 'ver'],
      ['help', 'cobro', 'ver'],
      ['nada', '--help'],
      ['--version', '--json'],
    ]) {
      expect(quickAnswer(argv, built, piped), argv.join(' ')).toBeUndefined();
    }
    expect(helpKey(['cobro', 'ver', '-h'])).toBe('cobro ver');
    expect(helpKey(['--profile', 'x', '--help'])).toBeUndefined();
  });

  it('a terminal narrower than 80 columns gets help wrapped by main; a wider one, the 80-column page', async () => {
    expect(quickAnswer(['--help'], built, { isTTY: true, columns: 60 })).toBeUndefined();
    expect(quickAnswer(['--help'], built, { isTTY: true, columns: 200 })).toBe(
      quickAnswer(['--help'], built, piped),
    );
    expect(quickAnswer(['--version'], built, { isTTY: true, columns: 60 })).toBe(`${VERSION}\n`);
  });

  it('main wraps help at the terminal, never wider than 80 columns', async () => {
    const page = async (columns: number) => {
      let out = '';
      const stdout = Object.assign(
        new Writable({ write: (c, _e, done) => ((out += String(c)), done()) }),
        { isTTY: true, columns },
      );
      await main(['cobro', 'crear', '--help'], {
        stdout,
        stderr: new Writable({ write: (_c, _e, done) => done() }),
        stdin: process.stdin,
        env: {},
      });
      return out;
    };
    const wide = await page(200);
    expect(wide).toBe((await svc(['cobro', 'crear', '--help'])).stdout);
    // Narrower: commander lays the page out for that width.
    expect(await page(64)).not.toBe(wide);
  });

  it('every help page fits the terminal: 80 columns, and 60 for a narrow one (examples broken as a shell reads them)', async () => {
    const page = async (argv: string[], columns: number) => {
      let out = '';
      const stdout = Object.assign(
        new Writable({ write: (c, _e, done) => ((out += String(c)), done()) }),
        { isTTY: true, columns },
      );
      await main(argv, {
        stdout,
        stderr: new Writable({ write: (_c, _e, done) => done() }),
        stdin: process.stdin,
        env: {},
      });
      return out;
    };
    const over: string[] = [];
    for (const path of helpPaths()) {
      for (const columns of [80, 60]) {
        for (const line of (await page([...path, '--help'], columns)).split('\n')) {
          // Only a word wider than its room may run past the edge ("America/Argentina/Buenos_Aires)").
          const oneWord = !/ /.test(line.trim());
          if (displayWidth(line) > columns && !oneWord)
            over.push(`${columns}: svc ${path.join(' ')} --help: ${line}`);
        }
      }
    }
    expect(over).toEqual([]);
    // A long example goes on after a backslash, its option and value together.
    expect(await page(['webhook', 'listen', '--help'], 60)).toContain(
      '--forward-to http://localhost:3000/hooks \\\n    --route payment.refunded=http://localhost:4000/refunds',
    );
  });

  it('help asked the other way round: help of a verb is its page; help of no command is that error, exit 2', async () => {
    const verb = await svc(['help', 'cobro', 'crear']);
    expect(verb.exitCode).toBe(0);
    expect(verb.stdout).toBe((await svc(['cobro', 'crear', '--help'])).stdout);
    expect(verb.stdout).toMatch(/^Uso: svc cobro crear/);
    for (const argv of [
      ['help', 'nada'],
      ['nada', '--help'],
      ['nada', '-h'],
    ]) {
      const r = await svc(argv);
      expect(r.exitCode, argv.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^error: comando desconocido 'nada'/);
      expect(r.stdout).toBe('');
    }
  });

  it('without the build files, main answers', () => {
    expect(quickAnswer(['--help'], '/nonexistent', piped)).toBeUndefined();
  });

  it('the built binary answers help from the pages', async () => {
    const r = await execa('node', [BIN, 'cobro', 'ver', '--help'], { reject: false });
    expect(r.exitCode).toBe(0);
    expect(`${r.stdout}\n`).toBe((await svc(['cobro', 'ver', '--help'])).stdout);
  });
});
