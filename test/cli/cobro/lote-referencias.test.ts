// Referencias as people type them, in a batch of payment requests: NFC and NFD, a
// zero-width space, a blank inside quotes are one referencia (refused twice in a file,
// not created again when the service holds it); case stays significant; what is
// sent is what was written.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/cli.js';
import { svc } from '../../helpers/inproc.js';
import { startSandbox, type Sandbox } from '../../helpers/sandbox.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb?.stop());

const all = async () =>
  (await sb.api('GET', '/v1/cobros')).body.data as { id: number; referencia: string | null }[];
let n = 0;
const prefix = () => `ref-${++n}-${Math.random().toString(36).slice(2, 7)}`;

function csv(lines: string[]): string {
  const path = join(tempDir('svc-cobros-'), 'cuotas.csv');
  writeFileSync(path, `concepto,monto,referencia\n${lines.join('\n')}\n`);
  return path;
}
const run = (path: string) => svc(['cobro', 'crear', '--lote', path, '--yes'], { env: sb.env });

describe('referencias in one normal form', () => {
  it.each([
    ['NFC and NFD', (p: string) => [`${p}-Jos\u00e9`, `${p}-Jose\u0301`]],
    ['a zero-width space', (p: string) => [`${p}-12`, `${p}\u200b-12`]],
    ['a BOM inside', (p: string) => [`${p}-12`, `${p}-\ufeff12`]],
    ['a trailing blank inside quotes', (p: string) => [`${p}-12`, `"${p}-12 "`]],
    ['a leading no-break space', (p: string) => [`${p}-12`, `"\u00a0${p}-12"`]],
  ])('%s: one referencia twice in the file, refused naming both lines', async (_n, cells) => {
    const p = prefix();
    const [a, b] = cells(p);
    const r = await run(csv([`Cuota,10.00,${a}`, `Cuota,10.00,${b}`]));
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/línea 3: la referencia ".*" ya está en la línea 2/);
    expect((await all()).filter((c) => c.referencia?.includes(p))).toEqual([]);
  });

  it('a referencia the service holds in another form is not created again (exit 2)', async () => {
    const p = prefix();
    expect((await run(csv([`Cuota,10.00,${p}-Jos\u00e9`]))).exitCode).toBe(0);
    const r = await run(csv([`Cuota,10.00,${p}-Jose\u0301\u200b`, `Cuota,10.00,${p}-otra`]));
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/línea 2: ya hay un cobro con la referencia/);
    expect((await all()).filter((c) => c.referencia?.startsWith(p))).toHaveLength(1);
  });

  it('case stays significant, and what is sent is what was written', async () => {
    const p = prefix();
    const r = await run(
      csv([`Cuota,10.00,${p}-abc`, `Cuota,10.00,${p}-ABC`, `Cuota,10.00,${p}-Jose\u0301`]),
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const sent = (await all()).filter((c) => c.referencia?.startsWith(p)).map((c) => c.referencia);
    expect(sent).toHaveLength(3);
    expect(sent).toEqual(expect.arrayContaining([`${p}-ABC`, `${p}-Jose\u0301`, `${p}-abc`]));
  });
});
