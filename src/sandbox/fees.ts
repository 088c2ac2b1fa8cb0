// The sandbox's fee table and delays per payment method (the seed leaves them open;
// docs/sandbox.md documents them). Fees are exact: money.percentOf, half-up to the cent.
// A settlement arrives a number of business days after the payment: no weekend and no
// national or bank holiday of the sandbox's zone's country (holiday-table.ts, the days
// `liquidaciones conciliar` skips too).
import type { Medio } from '../api/enums.js';
import { addBusinessDays, nextDay } from '../domain/extracto.js';
import { tableHolidays } from '../domain/holidays.js';
import { formatCents, percentOf, type Cents } from '../domain/money.js';

export interface FeeRow {
  medio: Medio;
  label: string;
  /** Percentage with four decimals: service fee + processor fee. */
  porcentaje: string;
  /** From the payment to `acreditacion` of the transaction. */
  creditDelayMs: number;
  /** Business days from the payment's day to `fecha_estimada` of the settlement. */
  settlementBusinessDays: number;
  /** Which switch of the payment request's `medios` allows this method. */
  switch: 'tarjeta' | 'qr' | 'transferencia';
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export const FEES: readonly FeeRow[] = [
  {
    medio: 'transferencia',
    label: 'Transferencia bancaria',
    porcentaje: '0.8000',
    creditDelayMs: 0,
    settlementBusinessDays: 1,
    switch: 'transferencia',
  },
  {
    medio: 'qr',
    label: 'Código QR',
    porcentaje: '0.9900',
    creditDelayMs: 0,
    settlementBusinessDays: 1,
    switch: 'qr',
  },
  {
    medio: 'debito',
    label: 'Tarjeta de débito',
    porcentaje: '1.9900',
    creditDelayMs: 1 * DAY,
    settlementBusinessDays: 2,
    switch: 'tarjeta',
  },
  {
    medio: 'credito',
    label: 'Tarjeta de crédito',
    porcentaje: '4.3900',
    creditDelayMs: 2 * DAY,
    settlementBusinessDays: 10,
    switch: 'tarjeta',
  },
  {
    medio: 'prepaga',
    label: 'Tarjeta prepaga',
    porcentaje: '2.9900',
    creditDelayMs: 1 * DAY,
    settlementBusinessDays: 3,
    switch: 'tarjeta',
  },
];

export function feeOf(medio: Medio): FeeRow {
  const row = FEES.find((f) => f.medio === medio);
  if (!row) throw new Error(`no fee for ${medio}`);
  return row;
}

const holidaysOf = new Map<string, ReadonlySet<string>>();
/** The holidays of `tz`'s country in `year` (none for a zone the table does not hold), computed once. */
function holidays(tz: string, year: number): ReadonlySet<string> {
  const key = `${tz} ${year}`;
  let days = holidaysOf.get(key);
  if (!days) {
    days = new Set(tableHolidays(tz, [year, year + 1])?.days.keys());
    holidaysOf.set(key, days);
  }
  return days;
}

/**
 * `fecha_estimada` of a payment made at `local` (`YYYY-MM-DD HH:MM:SS` in `tz`): the
 * `n`-th business day after the payment's day, at the payment's time. A payment on a
 * Friday, a Saturday or a Sunday with `n` 1 settles on Monday, or on Tuesday when that
 * Monday is a holiday.
 */
export function settlementDate(local: string, n: number, tz: string): string {
  const day = local.slice(0, 10);
  return (
    addBusinessDays(nextDay(day), n - 1, holidays(tz, Number(day.slice(0, 4)))) + local.slice(10)
  );
}

/** What GET /v1/cargos answers, in the seed's field order. */
export function cargos(): { medio: Medio; label: string; porcentaje: string }[] {
  return FEES.map((f) => ({ medio: f.medio, label: f.label, porcentaje: f.porcentaje }));
}

/** te_cobramos = monto × porcentaje / 100 (half-up to cents), te_queda = monto − te_cobramos. */
export function split(monto: Cents, medio: Medio): { te_cobramos: string; te_queda: string } {
  const fee = percentOf(monto, feeOf(medio).porcentaje);
  return { te_cobramos: formatCents(fee), te_queda: formatCents(monto - fee) };
}

/** Methods a payment request allows, in the order the payer simulation prefers them. */
export function allowedMedios(medios: {
  tarjeta: boolean;
  qr: boolean;
  transferencia: boolean;
}): Medio[] {
  return FEES.filter((f) => medios[f.switch]).map((f) => f.medio);
}
