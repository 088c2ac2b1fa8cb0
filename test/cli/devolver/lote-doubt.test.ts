// Two rows of a batch refund plan asking the same amount of the same request, both in
// doubt after a kill (each intent in the ledger, no outcome): whatever the service
// holds, each row is matched to its own refund or to none, never two rows to one
// refund, and nothing is refunded twice.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paidCobros, refundsPer } from '../../helpers/batches.js';
import { tempDir } from '../../helpers/cli.js';
import { svc } from '../../helpers/inproc.js';
import { startSandbox, type Sandbox } from '../../helpers/sandbox.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb?.stop());

/** A plan of two rows of 10.00 on request `c` and one on `d`, its ledger as a kill left it: both rows of `c` sent, no outcome. */
async function inDoubt(c: number, d: number): Promise<string> {
  const dir = tempDir('svc-lote-');
  writeFileSync(join(dir, 'lote.csv'), `cobro,monto\n${c},10.00\n${c},10.00\n${d},10.00\n`);
  const plan = join(dir, 'lote.json');
  const made = await svc(['devolver', '--lote', join(dir, 'lote.csv'), '--plan', plan], {
    env: sb.env,
  });
  expect(made.exitCode, made.stderr).toBe(0);
  const filas = (
    JSON.parse(readFileSync(plan, 'utf8')).filas as { fila: number; cobro_id: number }[]
  )
    .filter((f) => f.cobro_id === c)
    .map((f) => f.fila);
  expect(filas).toHaveLength(2);
  const at = new Date().toISOString();
  writeFileSync(
    `${plan}.registro.jsonl`,
    filas.map((fila) => `${JSON.stringify({ fila, intento: at })}\n`).join(''),
  );
  return plan;
}

const rowsOf = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map(
      (l) =>
        JSON.parse(l) as {
          fila: number;
          cobro_id: number;
          estado: string;
          devolucion_id: number | null;
        },
    );

describe('two rows of one amount on one request, both in doubt after a kill', () => {
  it('both refunds made before the kill: each row gets its own, none is sent again', async () => {
    const [c, d] = await paidCobros(sb, 2);
    const plan = await inDoubt(c!.id, d!.id);
    for (let i = 0; i < 2; i++)
      expect(
        (await sb.api('POST', `/v1/cobros/${c!.id}/devoluciones`, { monto: '10.00' })).status,
      ).toBe(201);
    const byHand = (await sb.api('GET', '/v1/devoluciones')).body.data
      .filter((x: { cobro_id: number }) => x.cobro_id === c!.id)
      .map((x: { id: number }) => x.id)
      .sort((a: number, b: number) => a - b);
    const r = await svc(['devolver', '--aplicar', plan, '--yes', '--json'], { env: sb.env });
    expect(r.exitCode, r.stderr).toBe(0);
    const rows = rowsOf(r.stdout).filter((x) => x.cobro_id === c!.id);
    expect(rows.map((x) => x.estado)).toEqual(['hecha', 'hecha']);
    // Each row its own refund: the two made before the kill, one each.
    expect(
      rows.map((x) => x.devolucion_id).sort((a, b) => a! - b!),
      JSON.stringify(rows),
    ).toEqual(byHand);
    expect(await refundsPer(sb, [c!.id, d!.id])).toEqual([2, 1]);
  });

  it('one refund made before the kill: neither row takes it, neither is sent (exit 1, rows_in_doubt)', async () => {
    const [c, d] = await paidCobros(sb, 2);
    const plan = await inDoubt(c!.id, d!.id);
    expect(
      (await sb.api('POST', `/v1/cobros/${c!.id}/devoluciones`, { monto: '10.00' })).status,
    ).toBe(201);
    const r = await svc(['devolver', '--aplicar', plan, '--yes', '--json'], { env: sb.env });
    // Which of the two it was cannot be told: neither row takes it, neither is sent.
    expect(r.exitCode, r.stderr).toBe(1);
    expect(JSON.parse(r.stderr.trim().split('\n').pop()!).error).toBe('rows_in_doubt');
    const rows = rowsOf(r.stdout).filter((x) => x.cobro_id === c!.id);
    expect(
      rows.map((x) => [x.estado, x.devolucion_id]),
      JSON.stringify(rows),
    ).toEqual([
      ['dudosa', null],
      ['dudosa', null],
    ]);
    expect(await refundsPer(sb, [c!.id, d!.id])).toEqual([1, 1]);
    expect(JSON.parse(readFileSync(plan, 'utf8')).aplicado).toBe(null);
  });
});
