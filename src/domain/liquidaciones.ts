// Settlement estimates totalled, exactly (integer cents, money.ts): overall and by the
// day the money is expected. One definition for `svc liquidaciones [--por-fecha]` and
// the sandbox's GET /_sandbox/liquidaciones/totales (the dashboard).
import type { Liquidacion } from '../api/schemas.js';
import { formatCents, parseAmount } from './money.js';
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

/**
 * Settlements grouped by the day of fecha_estimada, earliest first: its day in `timeZone`
 * (the service's) when it has an offset, its first ten characters otherwise.
 */
export function porFecha(rows: Iterable<Amounts>, timeZone?: string): PorFecha[] {
  const tally = new SettlementTally(true, timeZone);
  for (const r of rows) tally.add(r);
  return tally.porFecha();
}

interface Sums {
  n: number;
  bruto: bigint;
  te_cobramos: bigint;
  te_queda: bigint;
}

const noSums = (): Sums => ({ n: 0, bruto: 0n, te_cobramos: 0n, te_queda: 0n });

function addTo(s: Sums, r: Amounts): void {
  s.n++;
  s.bruto += parseAmount(r.bruto);
  s.te_cobramos += parseAmount(r.te_cobramos);
  s.te_queda += parseAmount(r.te_queda);
}

function mergeInto(s: Sums, o: Sums): void {
  s.n += o.n;
  s.bruto += o.bruto;
  s.te_cobramos += o.te_cobramos;
  s.te_queda += o.te_queda;
}

/**
 * The same totals as `total` and `porFecha`, made one settlement at a time (a list
 * read as a stream is folded into it and let go): memory for the days, not the rows.
 */
export class SettlementTally {
  private readonly all = noSums();
  private readonly days = new Map<string, Sums>();

  /** `timeZone` as porFecha takes it; `byDay` false keeps no days. */
  constructor(
    private readonly byDay = false,
    private readonly timeZone?: string,
  ) {}

  get count(): number {
    return this.all.n;
  }

  add(r: Amounts): void {
    addTo(this.all, r);
    if (!this.byDay) return;
    const day = this.timeZone
      ? localDay(r.fecha_estimada, this.timeZone)
      : r.fecha_estimada.slice(0, 10);
    let s = this.days.get(day);
    if (!s) this.days.set(day, (s = noSums()));
    addTo(s, r);
  }

  /** Takes in another tally's rows (another page of the list). */
  merge(other: SettlementTally): void {
    mergeInto(this.all, other.all);
    for (const [day, s] of other.days) {
      const mine = this.days.get(day);
      if (mine) mergeInto(mine, s);
      else this.days.set(day, { ...s });
    }
  }

  totals(): Record<Field, string> {
    return {
      bruto: formatCents(this.all.bruto),
      te_cobramos: formatCents(this.all.te_cobramos),
      te_queda: formatCents(this.all.te_queda),
    };
  }

  /** As porFecha gives them: earliest first. */
  porFecha(): PorFecha[] {
    return [...this.days.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([fecha, s]) => ({
        fecha,
        liquidaciones: s.n,
        bruto: formatCents(s.bruto),
        te_cobramos: formatCents(s.te_cobramos),
        te_queda: formatCents(s.te_queda),
      }));
  }
}
