// exportScenario keeps a closed request's vencimiento only while it is ahead of the
// sandbox's clock (a new request cannot be given a past one). Both are the sandbox's
// local text (`YYYY-MM-DD HH:MM:SS` in its zone), compared as such: read with
// Date.parse they would be taken in this machine's zone, hours off from the sandbox's.
import { describe, expect, it } from 'vitest';
import type { Cobro } from '../../src/api/schemas.js';
import { exportScenario } from '../../src/sandbox/scenario.js';

const paid = (id: number, vencimiento: string) =>
  ({
    id,
    codigo: `ABCDEFGH${id}2`.slice(0, 10),
    concepto: `pedido ${id}`,
    monto: '10.00',
    referencia: null,
    vencimiento,
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
    );
    expect(s.cobros).toHaveLength(1);
    expect(s.cobros[0]!.vencimiento).toBe(kept ? vencimiento : undefined);
  });
});
