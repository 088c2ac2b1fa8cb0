// The sandbox's fee table and delays per payment method (the seed leaves them open;
// docs/sandbox.md documents them). Fees are exact: money.percentOf, half-up to the cent.
import type { Medio } from '../api/enums.js';
import { formatCents, percentOf, type Cents } from '../domain/money.js';

export interface FeeRow {
  medio: Medio;
  label: string;
  /** Percentage with four decimals: service fee + processor fee. */
  porcentaje: string;
  /** From the payment to `acreditacion` of the transaction. */
  creditDelayMs: number;
  /** From the payment to `fecha_estimada` of the settlement. */
  settlementDelayMs: number;
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
    settlementDelayMs: 1 * DAY,
    switch: 'transferencia',
  },
  {
    medio: 'qr',
    label: 'Código QR',
    porcentaje: '0.9900',
    creditDelayMs: 0,
    settlementDelayMs: 1 * DAY,
    switch: 'qr',
  },
  {
    medio: 'debito',
    label: 'Tarjeta de débito',
    porcentaje: '1.9900',
    creditDelayMs: 1 * DAY,
    settlementDelayMs: 2 * DAY,
    switch: 'tarjeta',
  },
  {
    medio: 'credito',
    label: 'Tarjeta de crédito',
    porcentaje: '4.3900',
    creditDelayMs: 2 * DAY,
    settlementDelayMs: 10 * DAY,
    switch: 'tarjeta',
  },
  {
    medio: 'prepaga',
    label: 'Tarjeta prepaga',
    porcentaje: '2.9900',
    creditDelayMs: 1 * DAY,
    settlementDelayMs: 3 * DAY,
    switch: 'tarjeta',
  },
];

export function feeOf(medio: Medio): FeeRow {
  const row = FEES.find((f) => f.medio === medio);
  if (!row) throw new Error(`no fee for ${medio}`);
  return row;
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
