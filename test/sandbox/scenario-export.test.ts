// exportScenario keeps a closed request's vencimiento only while it is ahead of the
// sandbox's clock (a new request cannot be given a past one). Both are the sandbox's
// local text (`YYYY-MM-DD HH:MM:SS` in its zone), compared as such: read with
// Date.parse they would be taken in this machine's zone, hours off from the sandbox's.
// It writes how long ago each request was made (`hace`), reckoned in the sandbox's zone,
// oldest first as --escenario takes them.
import { describe, expect, it } from 'vitest';
import type { Cobro } from '../../src/api/schemas.js';
import { exportScenario, parseScenario } from '../../src/sandbox/scenario.js';

const TZ = 'America/Argentina/Buenos_Aires';
const paid = (id: number, vencimiento: string | null, created_at = '2026-11-25 23:00:00') =>
  ({
    id,
    codigo: `ABCDEFGH${id}2`.slice(0, 10),
    concepto: `pedido ${id}`,
    monto: '10.00',
    referencia: null,
    vencimiento,
    created_at,
    estado: 'PAGADA',
    medios: { tarjeta: true, qr: true, transferencia: true },
  }) as unknown as Cobro;

describe('exportScenario: a closed request keeps its vencimiento while it is ahead', () => {
  it.each([
    ['one minute ahead', '2026-11-25 23:01:00', true],
    ['one second past', '2026-11-25 22:59:59', false],
    ['past midnight, ahead', '2026-11-26 00:30:00', true],
  ])('%s', (_what, vencimiento, kept) => {
    const s = exportScenario(
      [{ ensayo: false, cobros: [paid(1, vencimiento)], transacciones: [], devoluciones: [] }],
      '2026-11-25 23:00:00',
      TZ,
    );
    expect(s.cobros).toHaveLength(1);
    expect(s.cobros[0]!.vencimiento).toBe(kept ? vencimiento : undefined);
  });
});

describe('exportScenario: hace, how long before the clock each request was made', () => {
  const one = (created: string, now: string, tz = TZ) =>
    exportScenario(
      [{ ensayo: false, cobros: [paid(1, null, created)], transacciones: [], devoluciones: [] }],
      now,
      tz,
    ).cobros[0]!.hace;

  it.each([
    ['days, hours, minutes, seconds', '2026-10-16 20:56:56', '40d2h3m4s'],
    ['whole days', '2026-11-15 23:00:00', '10d'],
    ['one second', '2026-11-25 22:59:59', '1s'],
    ['made this second: none', '2026-11-25 23:00:00', undefined],
    ['a date that is none: none', 'ayer', undefined],
  ])('%s', (_what, created, hace) => {
    expect(one(created, '2026-11-25 23:00:00')).toBe(hace);
  });

  it("reckoned in the sandbox's zone: a night that loses an hour is 11 hours long", () => {
    expect(one('2026-03-08 00:00:00', '2026-03-08 12:00:00', 'America/New_York')).toBe('11h');
  });

  it('oldest first: a request dated before the one ahead of it takes its moment', () => {
    const s = exportScenario(
      [
        {
          ensayo: false,
          cobros: [
            paid(1, null, '2026-11-24 23:00:00'),
            paid(2, null, '2026-11-23 23:00:00'),
            paid(3, null, '2026-11-25 22:00:00'),
            paid(4, null, '2026-11-25 23:00:00'),
          ],
          transacciones: [],
          devoluciones: [],
        },
      ],
      '2026-11-25 23:00:00',
      TZ,
    );
    expect(s.cobros.map((c) => c.hace)).toEqual(['1d', '1d', '1h', undefined]);
    expect(Object.keys(s.cobros[0]!).slice(0, 3)).toEqual(['id', 'codigo', 'hace']);
    // What it writes, --escenario takes.
    expect(parseScenario(JSON.stringify(s)).cobros).toHaveLength(4);
  });
});
