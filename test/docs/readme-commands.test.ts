// The README's commands are not run (they need a second terminal, a browser, an app), so
// each is checked against the command tree instead: every `svc …` line of its ```bash
// blocks names a command that exists and only options that command (or every command)
// takes. And docs/project-layout.md names every folder of src/.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { svc } from '../helpers/inproc.js';

interface Tree {
  comandos: { nombre: string; alias: string[]; opciones: { flags: string }[] }[];
  opciones_globales: { flags: string }[];
}

/** The long and short names of each option: "-y, --yes" → -y, --yes; "--no-qr" also --qr. */
const names = (flags: string) => flags.match(/--?[a-z][\w-]*/g) ?? [];

/** Each `svc …` line of the README's bash blocks, as words, up to a pipe or redirection. */
function readmeCalls(text: string): string[][] {
  const calls: string[][] = [];
  for (const block of text.matchAll(/^```bash\n([\s\S]*?)^```/gm)) {
    for (const raw of block[1]!.split('\n')) {
      const line = raw.replace(/\s+#.*$/, '').trim();
      if (!line.startsWith('svc ')) continue;
      const words = line
        .split(/\s*(?:\||>)\s*/)[0]!
        .match(/"[^"]*"|'[^']*'|\S+/g)!
        .slice(1);
      calls.push(words);
    }
  }
  return calls;
}

describe('README.md', () => {
  it('every svc command it shows exists, with options that command takes', async () => {
    const r = await svc(['comandos', '--json']);
    const tree = JSON.parse(r.stdout) as Tree;
    const global = new Set(tree.opciones_globales.flatMap((o) => names(o.flags)));
    const calls = readmeCalls(readFileSync(join(ROOT, 'README.md'), 'utf8'));
    expect(calls.length).toBeGreaterThan(15);
    const wrong: string[] = [];
    for (const words of calls) {
      const head = words.filter((w) => !w.startsWith('-'));
      const command = tree.comandos
        .filter((c) => c.nombre.split(' ').every((part, i) => head[i] === part))
        .sort((a, b) => b.nombre.length - a.nombre.length)[0];
      if (!command) {
        wrong.push(`svc ${words.join(' ')}: no such command`);
        continue;
      }
      const own = new Set(command.opciones.flatMap((o) => names(o.flags)));
      for (const w of words.filter((x) => x.startsWith('-'))) {
        const flag = w.replace(/=.*$/, '');
        if (!own.has(flag) && !global.has(flag))
          wrong.push(`svc ${words.join(' ')}: ${command.nombre} takes no ${flag}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});

describe('docs/project-layout.md', () => {
  it('names every folder of src/ (a command noun’s folder by its parent)', () => {
    const doc = readFileSync(join(ROOT, 'docs/project-layout.md'), 'utf8');
    const folders = (dir: string): string[] =>
      readdirSync(join(ROOT, dir))
        .filter((n) => statSync(join(ROOT, dir, n)).isDirectory())
        .flatMap((n) => [`${dir}/${n}`, ...folders(`${dir}/${n}`)]);
    const missing = folders('src')
      .filter((f) => !f.startsWith('src/cli/commands/'))
      .filter((f) => !doc.includes(`\`${f}/`));
    expect(missing).toEqual([]);
  });
});
