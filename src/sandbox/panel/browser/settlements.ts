// Settlements: the totals by estimated date.
import { call, latest } from './calls.js';
import { $, cell, fill } from './dom.js';
import type { TotalDia } from './wire.js';

export async function loadLiquidaciones(): Promise<void> {
  const r = await latest('liq', () => call<TotalDia[]>('GET', '/_sandbox/liquidaciones/totales'));
  if (!r) return;
  fill($('t-tot'), r.v, 5, (tr, t) => {
    cell(tr, t.fecha);
    cell(tr, t.cantidad, 'n');
    cell(tr, t.bruto, 'n');
    cell(tr, t.te_cobramos, 'n');
    cell(tr, t.te_queda, 'n');
  });
}
