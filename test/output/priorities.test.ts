// At 60 columns each list keeps the column it exists for (in-process, a forced terminal
// against a sandbox): `liquidaciones` keeps LLEGA, `--por operacion` keeps OPERACIÓN,
// `webhook eventos` keeps ESTADO and MONTO, `cobro listar` keeps REFERENCIA over VENCE.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { svcOnTerminal } from '../helpers/inproc.js';
import { journalEntryAs } from '../helpers/journal.js';
import { startSandbox, type Sandbox } from '../helpers/sandbox.js';
import { displayWidth } from '../../src/text.js';
import type { Liquidacion } from '../../src/api/schemas.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
  for (const [i, monto] of ['12500.50', '9800.00'].entries()) {
    const c = (
      await sb.api('POST', '/v1/cobros', {
        concepto: 'Curso anual de cerámica, turno noche',
        monto,
        referencia: `pedido-2026-${i + 1}`,
      })
    ).body.data as { id: number };
    expect(
      (await sb.api('POST', `/_sandbox/cobros/${c.id}/pagar`, { medio: 'credito' })).status,
    ).toBe(200);
    // The clock moves on to the day this settlement arrives, so the next one is paid on a
    // business day after it and every date differs from row to row (one value for all is
    // said above the table), whatever day of the week the test runs.
    const [liq] = (await sb.api('GET', '/v1/liquidaciones')).body.data as Liquidacion[];
    const at = (local: string) => Date.parse(`${local.replace(' ', 'T')}Z`);
    const days = (at(liq!.fecha_estimada) - at(liq!.fecha_operacion)) / 86_400_000;
    expect((await sb.api('POST', '/_sandbox/reloj', { avanzar: `${days}d` })).status).toBe(200);
  }
});
afterAll(() => sb.stop());

/** The header line of a table on the screen, and every line fits 60 columns. */
async function header(args: string[]): Promise<string> {
  const r = await svcOnTerminal(args, sb.env, 60);
  expect(r.exitCode, r.screen).toBe(0);
  const lines = r.screen.split('\n');
  for (const l of lines) expect(displayWidth(l), l).toBeLessThanOrEqual(60);
  return lines.find((l) => /^ *(ID|COBRO|FECHA|TRANSACCIÓN|CÓDIGO|EVENTO)\b/.test(l)) ?? r.screen;
}

describe('at 60 columns the column a list exists for stays', () => {
  it('liquidaciones keeps LLEGA (EST.); --por operacion keeps OPERACIÓN', async () => {
    expect(await header(['liquidaciones'])).toMatch(/LLEGA \(EST\.\)/);
    expect(await header(['liquidaciones', '--por', 'operacion'])).toMatch(/OPERACIÓN/);
  });

  it('cobro listar keeps REFERENCIA, VENCE goes first', async () => {
    const head = await header(['cobro', 'listar']);
    expect(head).toMatch(/REFERENCIA/);
    expect(head).not.toMatch(/VENCE/);
  });

  it('webhook eventos keeps ESTADO and MONTO', async () => {
    const journal = join(tempDir('svc-prio-'), 'journal.jsonl');
    writeFileSync(
      journal,
      [
        journalEntryAs('evt_00000000000a', { cobro_id: 41, monto: '23000.00' }),
        journalEntryAs('evt_00000000000b', { cobro_id: 42, monto: '185000.50' }),
      ]
        .map((e) => `${JSON.stringify({ ...e, event: 'payment.approved' })}\n`)
        .join(''),
    );
    const r = await svcOnTerminal(['webhook', 'eventos', '--journal', journal], sb.env, 60);
    expect(r.exitCode, r.screen).toBe(0);
    // What is the same on both rows (FECHA, FIRMA…) is said once above; ESTADO and MONTO stay.
    expect(r.screen).toMatch(/^ID +EVENTO +COBRO +ESTADO +MONTO$/m);
    expect(r.screen).toMatch(/ 185000\.50$/m);
  });
});
