// Settlement estimates totalled, exactly (integer cents, money.ts): overall and by the
// day the money is expected. One definition for `svc liquidaciones [--por-fecha]` and
// the sandbox's GET /_sandbox/liquidaciones/totales (the dashboard).
import type { Liquidacion } from '../api/schemas.js';
import { formatCents, sumAmounts } from './money.js';
import { localDay } from './dates.js';

type Amounts = Pick<Liquidacion, 'fecha_estimada' | 'bruto' | 'te_cobramos' | 'te_queda'>;

/** One estimated date's totals, exact (integer cents). */
export interface PorFecha {
  fecha: string;
  liquidaciones: number;
  bruto: string;
  te_cobramos: string;
  te_queda: string;
}

type Field = 'bruto' | 'te_cobramos' | 'te_queda';

/** The exact sum of one amount field. */
export const total = (rows: readonly Amounts[], field: Field): string =>
  formatCents(sumAmounts(rows.map((r) => r[field])));

/**
 * Settlements grouped by the day of fecha_estimada, earliest first: its day in `timeZone`
 * (the service's) when it has an offset, its first ten characters otherwise.
 */
export function porFecha(rows: Iterable<Amounts>, timeZone?: string): PorFecha[] {
  const byDate = new Map<string, Amounts[]>();
  for (const r of rows) {
    const day = timeZone ? localDay(r.fecha_estimada, timeZone) : r.fecha_estimada.slice(0, 10);
    const list = byDate.get(day);
    if (list) list.push(r);
    else byDate.set(day, [r]);
  }
  return [...byDate.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([fecha, list]) => ({
      fecha,
      liquidaciones: list.length,
      bruto: total(list, 'bruto'),
      te_cobramos: total(list, 'te_cobramos'),
      te_queda: total(list, 'te_queda'),
    }));
}
