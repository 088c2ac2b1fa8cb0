// docs/comandos.md is the command reference rendered from `svc comandos --json`: a command,
// option, example or exit code changed without `npm run docs:comandos` fails here.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a build script in plain JavaScript, without types of its own
import { COMANDOS_DOC, renderComandos } from '../../src/build/comandos-doc.mjs';
import { svc } from '../helpers/inproc.js';

describe('docs/comandos.md', () => {
  it('is what svc comandos --json says now', async () => {
    const r = await svc(['comandos', '--json']);
    expect(r.exitCode).toBe(0);
    const tree = JSON.parse(r.stdout) as { comandos: { nombre: string }[] };
    const want = (renderComandos as (t: unknown) => string)(tree);
    expect(tree.comandos.length).toBeGreaterThan(40);
    expect(
      readFileSync(COMANDOS_DOC as string, 'utf8') === want,
      'docs/comandos.md is not current: run `npm run docs:comandos` and commit the file',
    ).toBe(true);
    for (const c of tree.comandos) expect(want).toContain(`## svc ${c.nombre}\n`);
  });
});
