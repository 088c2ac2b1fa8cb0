// The state machine of a payment request, pure: which moves are allowed from which
// state, what they lead to, which event they emit, and the refund rules. No I/O, no
// clock, amounts in integer cents; store.ts applies the results.
import type { EstadoCobro, Evento } from '../api/enums.js';
import { formatCents, type Cents } from '../domain/money.js';
import { PAYABLE as RULES_PAYABLE, REFUNDABLE as RULES_REFUNDABLE } from '../domain/rules.js';

/** A move that is not allowed, with the reason a merchant can act on. */
export class TransitionError extends Error {
  override name = 'TransitionError';
}

export interface Move {
  estado: EstadoCobro;
  event: Evento;
}

/** States from which the payer can still act (start, pay, be rejected, expire). */
export const OPEN: readonly EstadoCobro[] = ['PENDIENTE', 'EN_PROCESO'];
/** States from which a payment can be credited. */
export const PAYABLE: readonly EstadoCobro[] = RULES_PAYABLE;
/** States from which a refund is allowed. */
export const REFUNDABLE: readonly EstadoCobro[] = RULES_REFUNDABLE;

export function created(): Move {
  return { estado: 'PENDIENTE', event: 'payment.created' };
}

/** The payer started paying: PENDIENTE -> EN_PROCESO. */
export function start(estado: EstadoCobro): Move {
  if (estado !== 'PENDIENTE')
    throw new TransitionError(`el pago solo puede empezar desde PENDIENTE; está ${estado}`);
  return { estado: 'EN_PROCESO', event: 'payment.pending' };
}

/** A payment of `amount` is credited. */
export function pay(p: {
  estado: EstadoCobro;
  monto: Cents;
  cobrado: Cents;
  amount: Cents;
}): Move & { cobrado: Cents } {
  if (!PAYABLE.includes(p.estado)) {
    throw new TransitionError(
      `un cobro ${p.estado} no se puede pagar (se puede desde ${PAYABLE.join(', ')})`,
    );
  }
  const left = p.monto - p.cobrado;
  if (p.amount <= 0n) throw new TransitionError('monto debe ser mayor que 0');
  if (p.amount > left) {
    throw new TransitionError(
      `monto ${formatCents(p.amount)} es más de lo que falta pagar (${formatCents(left)})`,
    );
  }
  const cobrado = p.cobrado + p.amount;
  return cobrado === p.monto
    ? { estado: 'PAGADA', event: 'payment.approved', cobrado }
    : { estado: 'PAGADA_PARCIALMENTE', event: 'payment.partially_paid', cobrado };
}

/** The payment was not credited: -> CANCELADO. */
export function reject(estado: EstadoCobro): Move {
  if (!OPEN.includes(estado))
    throw new TransitionError(
      `un cobro ${estado} no se puede rechazar (se puede desde ${OPEN.join(', ')})`,
    );
  return { estado: 'CANCELADO', event: 'payment.rejected' };
}

/** The request expired: -> CANCELADO. */
export function expire(estado: EstadoCobro): Move {
  if (!OPEN.includes(estado))
    throw new TransitionError(
      `un cobro ${estado} no puede vencer (puede desde ${OPEN.join(', ')})`,
    );
  return { estado: 'CANCELADO', event: 'payment.rejected' };
}

/** True when the request is past its expiry and still waiting for the payer. */
export function isExpired(estado: EstadoCobro, vencimientoMs: number | null, now: number): boolean {
  return vencimientoMs !== null && now >= vencimientoMs && OPEN.includes(estado);
}

export interface RefundInput {
  estado: EstadoCobro;
  /** Collected so far (monto_cobrado). */
  cobrado: Cents;
  /** Refunded so far on this request. */
  devuelto: Cents;
  amount: Cents;
  /** When the refund names a transaction: its amount and what was refunded of it. */
  transaccion?: { monto: Cents; devuelto: Cents; estado: string; sameCobro: boolean };
}

/** Refund rules: allowed states, never more than collected − refunded (and than what is left of the transaction). */
export function refund(r: RefundInput): Move & { tipo: 'parcial' | 'total'; devuelto: Cents } {
  if (!REFUNDABLE.includes(r.estado)) {
    throw new TransitionError(
      `un cobro ${r.estado} no admite devolución (se puede desde ${REFUNDABLE.join(', ')})`,
    );
  }
  if (r.amount <= 0n) throw new TransitionError('monto debe ser mayor que 0');
  const left = r.cobrado - r.devuelto;
  if (r.amount > left) {
    throw new TransitionError(
      `monto ${formatCents(r.amount)} es más de lo que queda por devolver (${formatCents(left)})`,
    );
  }
  if (r.transaccion) {
    const t = r.transaccion;
    if (!t.sameCobro) throw new TransitionError('la transacción no es de este cobro');
    if (t.estado !== 'ACREDITADO')
      throw new TransitionError(
        `la transacción está ${t.estado}; solo se devuelven transacciones ACREDITADO`,
      );
    const txLeft = t.monto - t.devuelto;
    if (r.amount > txLeft) {
      throw new TransitionError(
        `monto ${formatCents(r.amount)} es más de lo que queda de la transacción (${formatCents(txLeft)})`,
      );
    }
  }
  const devuelto = r.devuelto + r.amount;
  return devuelto === r.cobrado
    ? { estado: 'DEVUELTA', event: 'payment.refunded', tipo: 'total', devuelto }
    : {
        estado: 'DEVUELTA_PARCIALMENTE',
        event: 'payment.partially_refunded',
        tipo: 'parcial',
        devuelto,
      };
}
