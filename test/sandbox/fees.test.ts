// The sandbox's fee table is what its settlements are computed from: each method's
// name, percentage, when the money is credited (days after the payment) and when it is
// settled (business days after it). A changed delay moves every fecha_estimada; a changed label changes
// GET /v1/cargos. Compared whole, and settlements grouped by date in date order.
import { describe, expect, it } from 'vitest';
import type { Liquidacion } from '../../src/api/schemas.js';
import { porFecha } from '../../src/domain/liquidaciones.js';
import { FEES, cargos, feeOf } from '../../src/sandbox/fees.js';

const DAY = 86_400_000;

describe('the fee table', () => {
  it('is exactly the published one: labels, percentages, credit delays in days, settlement in business days', () => {
    expect(
      FEES.map((f) => [
        f.medio,
        f.label,
        f.porcentaje,
        f.creditDelayMs / DAY,
        f.settlementBusinessDays,
        f.switch,
      ]),
    ).toEqual([
      ['transferencia', 'Transferencia bancaria', '0.8000', 0, 1, 'transferencia'],
      ['qr', 'Código QR', '0.9900', 0, 1, 'qr'],
      ['debito', 'Tarjeta de débito', '1.9900', 1, 2, 'tarjeta'],
      ['credito', 'Tarjeta de crédito', '4.3900', 2, 10, 'tarjeta'],
      ['prepaga', 'Tarjeta prepaga', '2.9900', 1, 3, 'tarjeta'],
    ]);
    expect(cargos()[3]).toEqual({
      medio: 'credito',
      label: 'Tarjeta de crédito',
      porcentaje: '4.3900',
    });
  });
  it('has no row for a method it does not know', () => {
    expect(() => feeOf('cheque' as never)).toThrow('no fee for cheque');
  });
});

describe('porFecha orders days earliest first, whatever order they come in', () => {
  const liq = (fecha_estimada: string): Liquidacion => ({
    id: 1,
    transaccion_id: 1,
    cobro_id: 1,
    bruto: '1.00',
    te_cobramos: '0.01',
    te_queda: '0.99',
    fecha_operacion: '2026-11-01 10:00:00',
    fecha_estimada,
    estado: 'estimado',
  });
  it.each([
    [['2026-11-05', '2026-11-03', '2026-11-04', '2026-11-01']],
    [['2026-11-01', '2026-11-03', '2026-11-02', '2026-11-05']],
    [['2026-12-01', '2026-11-30', '2026-11-30', '2026-01-15']],
  ])('%j', (days) => {
    const got = porFecha(days.map((d) => liq(`${d} 12:00:00`))).map((r) => r.fecha);
    expect(got).toEqual([...new Set(days)].sort());
  });
});
