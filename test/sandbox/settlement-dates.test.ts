// When a settlement arrives: the sandbox's fecha_estimada is the n-th business day after
// the payment's day (1 for qr and transferencia, 2 debito, 3 prepaga, 10 credito), at the
// payment's time, skipping weekends and Argentina's national and bank holidays in the
// service's zone; a zone of no country in the table skips weekends only. The sandbox's
// clock is fixed at known instants, so nothing here depends on today's date.
import { afterAll, describe, expect, it } from 'vitest';
import { startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';
import { svc } from '../helpers/inproc.js';

const started: InProcessSandbox[] = [];
afterAll(() => Promise.all(started.map((sb) => sb.close())));

/** A sandbox whose clock reads `clock.t`, moved by the test. */
async function sandboxAt(iso: string, tz?: string) {
  const clock = { t: Date.parse(iso) };
  const sb = await startSandbox({ now: () => clock.t, ...(tz ? { tz } : {}) });
  started.push(sb);
  return { sb, clock };
}

/** Pays a new request with `medio` through `svc sandbox pagar`; its settlement's fecha_estimada. */
async function settled(sb: InProcessSandbox, medio: string): Promise<string> {
  const { id } = await sb.cobro({ monto: '1000.00' });
  const pay = await svc(['sandbox', 'pagar', String(id), '--medio', medio], { env: sb.env });
  expect(pay.exitCode, pay.stderr).toBe(0);
  const r = await svc(['liquidaciones', '--json'], { env: sb.env });
  expect(r.exitCode, r.stderr).toBe(0);
  const all = JSON.parse(r.stdout) as { cobro_id: number; fecha_estimada: string }[];
  return all.find((l) => l.cobro_id === id)!.fecha_estimada;
}

describe('fecha_estimada counts business days in the service’s zone', () => {
  it('a Friday’s payments skip the weekend and Monday 2026-11-23 (Día de la Soberanía Nacional)', async () => {
    // Friday 2026-11-20, 15:00 in Buenos Aires.
    const { sb } = await sandboxAt('2026-11-20T18:00:00Z');
    expect(await settled(sb, 'qr')).toBe('2026-11-24 15:00:00');
    expect(await settled(sb, 'transferencia')).toBe('2026-11-24 15:00:00');
    expect(await settled(sb, 'debito')).toBe('2026-11-25 15:00:00');
    expect(await settled(sb, 'prepaga')).toBe('2026-11-26 15:00:00');
    // 24, 25, 26, 27, 30 November, 1, 2, 3, 4 and 7 December.
    expect(await settled(sb, 'credito')).toBe('2026-12-07 15:00:00');
  });

  it('a weekend’s payment counts from Monday; a holiday inside the span is skipped; the local day decides', async () => {
    const { sb, clock } = await sandboxAt('2026-11-21T18:00:00Z');
    // Saturday: the first business day after it is Tuesday (Monday is a holiday).
    expect(await settled(sb, 'qr')).toBe('2026-11-24 15:00:00');
    // Monday 2026-12-07: Tuesday the 8th (Inmaculada Concepción) is skipped.
    clock.t = Date.parse('2026-12-07T17:30:00Z');
    expect(await settled(sb, 'debito')).toBe('2026-12-10 14:30:00');
    // Thursday 2026-12-24 is optional (banks open): a business day.
    clock.t = Date.parse('2026-12-23T13:00:00Z');
    expect(await settled(sb, 'qr')).toBe('2026-12-24 10:00:00');
    // Friday 2026-12-04 at 01:30 UTC is still Thursday the 3rd in Buenos Aires.
    clock.t = Date.parse('2026-12-04T01:30:00Z');
    expect(await settled(sb, 'qr')).toBe('2026-12-04 22:30:00');
    // Across the year: Thursday 2026-12-31, then 1 January (Año Nuevo) and a weekend.
    clock.t = Date.parse('2026-12-31T15:00:00Z');
    expect(await settled(sb, 'qr')).toBe('2027-01-04 12:00:00');
  });

  it('in a zone of no country (UTC) only weekends are skipped', async () => {
    const { sb } = await sandboxAt('2026-11-20T18:00:00Z', 'UTC');
    expect(await settled(sb, 'qr')).toBe('2026-11-23 18:00:00');
    expect(await settled(sb, 'credito')).toBe('2026-12-04 18:00:00');
  });
});
