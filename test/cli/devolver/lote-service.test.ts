// A batch refund plan answers to the service, not to its ledger: a copy of the plan
// applied after the original, a refund made by hand after the plan, a ledger lost
// after a partial apply; and two rows the service cannot tell apart are named, not
// guessed. Each case counts the refunds the sandbox holds.
import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killAtRandom, paidCobros, refundsPer } from '../../helpers/batches.js';
import { expectNoStack, svcSpawned, tempDir } from '../../helpers/cli.js';
import { svc } from '../../helpers/inproc.js';
import { startSandbox, type Sandbox } from '../../helpers/sandbox.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb?.stop());

/** A batch plan of `rows` ([request id, amount]); its path. */
async function batchPlan(rows: [number, string][]): Promise<string> {
  const dir = tempDir('svc-lote-');
  writeFileSync(join(dir, 'lote.csv'), `cobro,monto\n${rows.map((r) => r.join(',')).join('\n')}\n`);
  const made = await svc(
    ['devolver', '--lote', join(dir, 'lote.csv'), '--plan', join(dir, 'lote.json')],
    { env: sb.env },
  );
  expect(made.exitCode, made.stderr).toBe(0);
  return join(dir, 'lote.json');
}

const apply = (plan: string) =>
  svc(['devolver', '--aplicar', plan, '--yes', '--json'], { env: sb.env });
const states = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { fila: number; estado: string });

describe('a batch plan answers to the service', () => {
  it('a copy taken before the first apply, applied after it: 3 rows make 3 refunds, not 6', async () => {
    const ids = (await paidCobros(sb, 3)).map((c) => c.id);
    const plan = await batchPlan(ids.map((id) => [id, '10.00']));
    const copy = join(tempDir('svc-copia-'), 'copia.json');
    copyFileSync(plan, copy);
    expect((await apply(plan)).exitCode).toBe(0);
    const second = await apply(copy);
    expect(second.exitCode, second.stderr).toBe(0);
    expect(states(second.stdout).map((s) => s.estado)).toEqual([
      'encontrada',
      'encontrada',
      'encontrada',
    ]);
    expect(second.stderr).toMatch(
      /línea 2: el cobro \d+ ya tiene una devolución de 10\.00 hecha después del plan \(devolución \d+, .*\): no se envía otra/,
    );
    expect(await refundsPer(sb, ids)).toEqual([1, 1, 1]);
    // Applied again, the copy says it was applied.
    expect((await apply(copy)).exitCode).toBe(2);
    expect(await refundsPer(sb, ids)).toEqual([1, 1, 1]);
  });

  it('a refund made by hand after the plan was written: that row is not sent again', async () => {
    const ids = (await paidCobros(sb, 2)).map((c) => c.id);
    const plan = await batchPlan([
      [ids[0]!, '30.00'],
      [ids[1]!, '30.00'],
    ]);
    const byHand = await svc(['devolver', String(ids[0]), '--monto', '30.00', '--yes'], {
      env: sb.env,
    });
    expect(byHand.exitCode, byHand.stderr).toBe(0);
    const r = await apply(plan);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(states(r.stdout).map((s) => s.estado)).toEqual(['encontrada', 'hecha']);
    expect(await refundsPer(sb, ids)).toEqual([1, 1]);
  });

  it('a refund of another amount made since the plan is not this row’s: the row is sent', async () => {
    const [c] = await paidCobros(sb, 1);
    const plan = await batchPlan([[c!.id, '30.00']]);
    await svc(['devolver', String(c!.id), '--monto', '5.00', '--yes'], { env: sb.env });
    const r = await apply(plan);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(states(r.stdout).map((s) => s.estado)).toEqual(['hecha']);
    expect(await refundsPer(sb, [c!.id])).toEqual([2]);
  });

  it('the ledger deleted after a partial apply: every row once (10 rows, killed, ledger removed, applied again)', async () => {
    const ids = (await paidCobros(sb, 10)).map((c) => c.id);
    const plan = await batchPlan(ids.map((id) => [id, '10.00']));
    const kill = await killAtRandom(
      sb,
      ['devolver', '--aplicar', plan, '--yes'],
      `${plan}.registro.jsonl`,
      { rows: 10, maxLines: 12 },
    );
    expect(kill.midBatch, kill.why).toBe(true);
    rmSync(`${plan}.registro.jsonl`, { force: true });
    const again = await svcSpawned(['devolver', '--aplicar', plan, '--yes'], { env: sb.env });
    // The kill may have come after the plan was marked: then it says so.
    expect([0, 2], again.stderr).toContain(again.exitCode);
    expectNoStack(again.stderr);
    expect(await refundsPer(sb, ids)).toEqual(ids.map(() => 1));
  }, 60_000);

  it('two rows of one amount on one request, one refund found: neither is sent, both named (exit 1)', async () => {
    const [c, d] = await paidCobros(sb, 2);
    const plan = await batchPlan([
      [c!.id, '10.00'],
      [c!.id, '10.00'],
      [d!.id, '10.00'],
    ]);
    await svc(['devolver', String(c!.id), '--monto', '10.00', '--yes'], { env: sb.env });
    const r = await apply(plan);
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(
        `línea 2: el cobro ${c!.id} tiene 1 devolución de 10\\.00 hecha después del plan \\(devolución \\d+\\) para 2 filas de ese monto \\(línea 2, línea 3\\): no se sabe cuáles se hicieron y no se envía ninguna`,
      ),
    );
    expect(JSON.parse(r.stderr.trim().split('\n').pop()!)).toMatchObject({
      error: 'rows_in_doubt',
    });
    expect(states(r.stdout).map((s) => s.estado)).toEqual(['dudosa', 'dudosa', 'hecha']);
    expect(await refundsPer(sb, [c!.id, d!.id])).toEqual([1, 1]);
    // Not marked applied, and a second apply still refuses to guess.
    expect(JSON.parse(readFileSync(plan, 'utf8')).aplicado).toBe(null);
    expect((await apply(plan)).exitCode).toBe(1);
    expect(await refundsPer(sb, [c!.id, d!.id])).toEqual([1, 1]);
  });
});
