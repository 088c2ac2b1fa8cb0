// Batch files as spreadsheets save them (in-process against a sandbox): Windows-1252
// (Excel's "CSV" on Spanish Windows), the column names a statement uses (Descripción,
// Importe, Código, Observaciones), extra columns left out with a notice instead of
// stopping the batch, a result file with the input's separator, and a rerun whose
// summary counts what that run did.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paidCobros } from '../helpers/batches.js';
import { tempDir } from '../helpers/cli.js';
import { svc } from '../helpers/inproc.js';
import { startSandbox, type Sandbox } from '../helpers/sandbox.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.stop());

/** `text` as Excel on Spanish Windows saves it: Windows-1252 (Latin-1 covers these letters). */
const win1252 = (text: string) => Buffer.from(text, 'latin1');

describe('batch files as spreadsheets save them', () => {
  it('cobro crear --lote: Windows-1252, Descripción/Importe, extra columns noticed; result with ;, a rerun counts only itself', async () => {
    const dir = tempDir('svc-planilla-');
    const csv = join(dir, 'cuotas.csv');
    const ref = `fam-${Date.now()}`;
    writeFileSync(
      csv,
      win1252(
        `Descripción;Importe;Referencia;Familia;Teléfono\r\nCuota de María Ibáñez;1.500,50;${ref};Pérez;555-1234\r\n`,
      ),
    );
    const out = join(dir, 'resultado.csv');
    const r = await svc(['cobro', 'crear', '--lote', csv, '--resultado', out], { env: sb.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/no es UTF-8; se leyó como Windows-1252/);
    expect(r.stderr).toMatch(
      /las columnas "Familia", "Teléfono" no son de svc: no se usan \(columnas de svc: concepto, monto/,
    );
    expect(r.stderr).toMatch(/^1 cobro creado, 0 rechazados; resultado en /m);
    const made = (await sb.api('GET', `/v1/cobros?q=${ref}`)).body.data as {
      concepto: string;
      monto: string;
    }[];
    expect(made).toMatchObject([{ concepto: 'Cuota de María Ibáñez', monto: '1500.50' }]);
    const result = readFileSync(out, 'utf8');
    expect(result.split('\r\n')[0]).toBe('fila;referencia;monto;estado;cobro_id;codigo;url;error');
    expect(result).toMatch(new RegExp(`^2;${ref};1500\\.50;creado;\\d+;`, 'm'));

    const again = await svc(['cobro', 'crear', '--lote', csv], { env: sb.env });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toMatch(
      /^0 cobros creados, 0 rechazados; 1 fila ya estaba hecha de antes$/m,
    );
  });

  it('devolver --lote: Código/Importe/Observaciones in Windows-1252, an unknown column noticed, the plan written', async () => {
    const [a] = await paidCobros(sb, 1);
    const dir = tempDir('svc-planilla-');
    const csv = join(dir, 'devoluciones.csv');
    writeFileSync(
      csv,
      win1252(`Código;Importe;Observaciones;Motvo\r\n${a!.codigo};12,50;canceló la función;x\r\n`),
    );
    const plan = join(dir, 'lote.json');
    const r = await svc(['devolver', '--lote', csv, '--plan', plan], { env: sb.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/la columna "Motvo" no es de svc: no se usa/);
    expect(existsSync(plan)).toBe(true);
    const p = JSON.parse(readFileSync(plan, 'utf8'));
    expect(p.filas).toMatchObject([
      { cobro_id: a!.id, monto: '12.50', motivo: 'canceló la función' },
    ]);
    // The result of applying it has the batch file's separator, as a batch of requests' has.
    const out = join(dir, 'resultado.csv');
    const applied = await svc(['devolver', '--aplicar', plan, '--yes', '--resultado', out], {
      env: sb.env,
    });
    expect(applied.exitCode, applied.stderr).toBe(0);
    const result = readFileSync(out, 'utf8').split('\r\n');
    expect(result[0]).toBe('fila;cobro;monto;estado;devolucion_id;error');
    expect(result[1]).toMatch(new RegExp(`^2;${a!.id};12\\.50;hecha;\\d+;$`));
  });
});
