// The settlements' totals line as a person reads it, one wording wherever it shows
// (`svc liquidaciones` under its table, `svc caso` under its settlements): words, not
// the API's field names. Piped, `liquidaciones` keeps its tab-separated line of field
// names on stderr, for scripts.
import { count } from '../../text.js';

export interface SettlementTotals {
  bruto: string;
  te_cobramos: string;
  te_queda: string;
}

/** `total: bruto X, te cobramos Y, te queda Z (N liquidaciones)` in parts that may go on separate lines. */
export function settlementTotalsParts(t: SettlementTotals, n?: number): string[] {
  return [
    `total: bruto ${t.bruto},`,
    `te cobramos ${t.te_cobramos},`,
    `te queda ${t.te_queda}`,
    ...(n === undefined ? [] : [`(${count(n, 'liquidación', 'liquidaciones')})`]),
  ];
}
