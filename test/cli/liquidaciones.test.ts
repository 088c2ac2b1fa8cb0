// svc liquidaciones --por-fecha: per estimated date, bruto / te_cobramos / te_queda
// summed exactly (integer cents), against a real sandbox and as pure logic.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Liquidacion } from '../../src/api/schemas.js';
import { porFecha } from '../../src/domain/liquidaciones.js';
import { svcSpawned } from '../helpers/cli.js';
import { svc } from '../helpers/inproc.js';
import { startSandbox, type Sandbox } from '../helpers/sandbox.js';

const liq = (
  fecha_estimada: string,
  bruto: string,
  te_cobramos: string,
  te_queda: string,
): Liquidacion => ({
  id: 1,
  transaccion_id: 1,
  cobro_id: 1,
  bruto,
  te_cobramos,
  te_queda,
  fecha_operacion: '2026-11-01 10:00:00',
  fecha_estimada,
  estado: 'estimado',
});

describe('porFecha', () => {
  it('groups by the day of fecha_estimada, earliest first, sums in cents (0.10 + 0.20 is 0.30)', () => {
    expect(
      porFecha([
        liq('2026-11-03 09:00:00', '0.10', '0.01', '0.09'),
        liq('2026-11-02 23:59:59', '5.00', '0.50', '4.50'),
        liq('2026-11-03 18:00:00', '0.20', '0.02', '0.18'),
      ]),
    ).toEqual([
      {
        fecha: '2026-11-02',
        liquidaciones: 1,
        bruto: '5.00',
        te_cobramos: '0.50',
        te_queda: '4.50',
      },
      {
        fecha: '2026-11-03',
        liquidaciones: 2,
        bruto: '0.30',
        te_cobramos: '0.03',
        te_queda: '0.27',
      },
    ]);
  });
});

describe('svc liquidaciones --por-fecha', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox();
    for (const [monto, medio] of [
      ['100.10', 'qr'],
      ['200.20', 'debito'],
      ['300.30', 'credito'],
      ['0.70', 'qr'],
    ] as const) {
      const id = (await sb.api('POST', '/v1/cobros', { concepto: 'Liquidar', monto })).body.data.id;
      expect((await sb.api('POST', `/_sandbox/cobros/${id}/pagar`, { medio })).status).toBe(200);
    }
  });
  afterAll(() => sb?.stop());

  it('--json: one object per date whose totals are the exact sums of that date’s settlements', async () => {
    const r = await svcSpawned(['liquidaciones', '--por-fecha', '--json'], { env: sb.env });
    expect(r.exitCode, r.stderr).toBe(0);
    const days = JSON.parse(r.stdout) as { fecha: string; liquidaciones: number; bruto: string }[];
    const all = (await sb.api('GET', '/v1/liquidaciones')).body.data as Liquidacion[];
    const cents = (s: string) => BigInt(s.replace('.', ''));
    expect(days.reduce((n, d) => n + d.liquidaciones, 0)).toBe(all.length);
    for (const d of days) {
      const mine = all.filter((l) => l.fecha_estimada.startsWith(d.fecha));
      expect(cents(d.bruto)).toBe(mine.reduce((s, l) => s + cents(l.bruto), 0n));
    }
    expect(days.map((d) => d.fecha)).toEqual(
      [...new Set(all.map((l) => l.fecha_estimada.slice(0, 10)))].sort(),
    );
    expect(days.length).toBeGreaterThan(1);
  });

  it('piped: a TSV row per date, the grand total on stderr', async () => {
    const r = await svc(['liquidaciones', '--por-fecha'], { env: sb.env });
    expect(r.exitCode).toBe(0);
    for (const row of r.stdout.trim().split('\n'))
      expect(row).toMatch(/^\d{4}-\d{2}-\d{2}\t\d+\t\d+\.\d\d\t\d+\.\d\d\t\d+\.\d\d$/);
    expect(r.stderr).toMatch(/^total\tbruto 601\.30\t.*\t\(\d+ liquidaciones\)$/m);
  });

  it('one settlement is counted in the singular', async () => {
    const one = (await sb.api('GET', '/v1/liquidaciones')).body.data[0] as Liquidacion;
    const r = await svc(['liquidaciones', '--cobro', String(one.cobro_id)], { env: sb.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^total\t.*\t\(1 liquidación\)$/m);
  });
});
