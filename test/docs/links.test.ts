// Every link between the project's documents leads somewhere: a relative link names a file
// that exists, and a `#anchor` names a heading of that file as GitHub renders it. A heading
// reworded (a page translated, a section renamed) without its links fails here.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

const DOCS = [
  'README.md',
  'CONTRIBUTING.md',
  'CHANGELOG.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The text outside fenced blocks and inline code, where a link is a link. */
function prose(text: string): string {
  return text.replace(/^```[^\n]*\n[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as dashes. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors a file's headings get, a repeated one numbered as GitHub numbers it. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  const bare = text.replace(/^```[^\n]*\n[\s\S]*?^```/gm, '');
  for (const m of bare.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Each relative link of a file: where it appears, the file it names and its anchor. */
function links(file: string): { at: string; target: string; anchor: string | undefined }[] {
  const text = prose(readFileSync(join(ROOT, file), 'utf8'));
  const out = [];
  for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const href = m[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue; // https:, mailto:
    const [path, anchor] = href.split('#') as [string, string | undefined];
    const target = path === '' ? file : relative(ROOT, join(ROOT, dirname(file), path));
    out.push({ at: `${file}: ${href}`, target, anchor });
  }
  return out;
}

describe('links between the documents', () => {
  it('a heading becomes the anchor GitHub gives it', () => {
    expect(slug('Un cliente llama (soporte)')).toBe('un-cliente-llama-soporte');
    expect(slug('Simular a quien paga (solo en el sandbox)')).toBe(
      'simular-a-quien-paga-solo-en-el-sandbox',
    );
    expect(slug('Detrás de un proxy o con la CA de tu empresa')).toBe(
      'detrás-de-un-proxy-o-con-la-ca-de-tu-empresa',
    );
    expect(slug('svc sandbox iniciar')).toBe('svc-sandbox-iniciar');
  });

  it('every relative link names a file that exists, and a heading of it', () => {
    const all = DOCS.flatMap(links);
    expect(all.filter((l) => l.anchor !== undefined).length).toBeGreaterThan(40);
    const broken = all.filter(
      (l) =>
        !existsSync(join(ROOT, l.target)) ||
        (l.anchor !== undefined &&
          l.target.endsWith('.md') &&
          !anchors(readFileSync(join(ROOT, l.target), 'utf8')).has(decodeURIComponent(l.anchor))),
    );
    expect(broken.map((l) => l.at)).toEqual([]);
  });
});
