// Where svc expects a file, only a regular file is read: a FIFO or a link to /dev/zero
// in place of a batch's ledger or of a plan in `devolver planes DIR` is refused or
// passed over at once, never read (a FIFO would block svc, /dev/zero would never end).
// And JSON nested 200,000 levels deep (a scenario, a data file) is refused naming the
// file and line, not a stack overflow.
import { execFileSync } from 'node:child_process';
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paidCobros } from '../../helpers/batches.js';
import { expectNoStack, svcSpawned, tempDir } from '../../helpers/cli.js';
import { svc } from '../../helpers/inproc.js';
import { startSandbox, type Sandbox } from '../../helpers/sandbox.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb?.stop());

const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;

describe('only regular files are read', () => {
  it.each([
    ['a FIFO', (p: string) => execFileSync('mkfifo', [p])],
    ['a link to /dev/zero', (p: string) => symlinkSync('/dev/zero', p)],
  ])('%s as a batch plan’s ledger: refused at once, nothing sent', async (_n, plant) => {
    const [c] = await paidCobros(sb, 1);
    const dir = tempDir('svc-lote-');
    writeFileSync(join(dir, 'lote.csv'), `cobro,monto\n${c!.id},10.00\n`);
    const plan = join(dir, 'lote.json');
    expect(
      (await svc(['devolver', '--lote', join(dir, 'lote.csv'), '--plan', plan], { env: sb.env }))
        .exitCode,
    ).toBe(0);
    plant(`${plan}.registro.jsonl`);
    const r = await svcSpawned(['devolver', '--aplicar', plan, '--yes'], {
      env: sb.env,
      timeout: 20_000,
    });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toMatch(
      /el registro .*lote\.json\.registro\.jsonl (no es un archivo común|es un enlace simbólico).*: no se hizo nada/,
    );
    expectNoStack(r.stderr);
    const refunds = (await sb.api('GET', '/v1/devoluciones')).body.data as { cobro_id: number }[];
    expect(refunds.filter((d) => d.cobro_id === c!.id)).toEqual([]);
  });

  it('devolver planes DIR passes over a FIFO and a link to /dev/zero named .json', async () => {
    const dir = tempDir('svc-planes-');
    execFileSync('mkfifo', [join(dir, 'tuberia.json')]);
    symlinkSync('/dev/zero', join(dir, 'cero.json'));
    const r = await svcSpawned(['devolver', 'planes', dir], { timeout: 20_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
  });

  it('devolver planes DIR names a file too large to read there rather than passing over it', async () => {
    const dir = tempDir('svc-planes-');
    // A batch plan of some 30,000 rows is this large: valid JSON, 9 MiB.
    writeFileSync(join(dir, 'grande.json'), `{"filas": [${'"x",'.repeat(9 * 2 ** 18)}"x"]}`);
    const r = await svc(['devolver', 'planes', dir]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^aviso: grande\.json no se lista: tiene 9\.0 MiB y aquí se leen hasta 8 MiB; si es un plan, svc devolver --aplicar lo muestra entero antes de preguntar$/m,
    );
    expectNoStack(r.stderr);
  });
});

describe('JSON nested deeper than svc reads', () => {
  it('a scenario 200,000 levels deep: exit 2 naming the file and line', async () => {
    const file = join(tempDir('svc-escenario-'), 'hondo.json');
    writeFileSync(file, `{"cobros": ${deep}}`);
    const r = await svc(['sandbox', '--port', '0', '--escenario', file]);
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toContain(`--escenario ${file}: anida más de 64 niveles de [ y { (línea 1)`);
    expectNoStack(r.stderr);
  });

  it('a data file with a line 200,000 levels deep: refused naming the file and line', async () => {
    const file = join(tempDir('svc-sb-'), 'state.jsonl');
    writeFileSync(file, `${deep}\n`);
    const r = await svcSpawned(['sandbox', '--port', '0', '--data', file], { timeout: 20_000 });
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/state\.jsonl, línea 1: .*anida más de 64 niveles/);
    expectNoStack(r.stderr);
  });
});
