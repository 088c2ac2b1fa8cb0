// The seven notification events: the payment-request state each one carries, a
// realistic body for `webhook trigger` (field order as the service sends it), and a
// summary of any received body that never throws (bodies come from the network).
import { EVENTOS, type EstadoCobro, type Evento } from '../api/enums.js';
import type { EventoBody } from '../api/schemas.js';
import { DEFAULTS } from '../defaults.js';
import { formatCents, parseAmount, percentOf } from '../domain/money.js';

/** The `estado` each event carries (payment.pending may also carry PENDIENTE). */
export const ESTADO_OF: Record<Evento, EstadoCobro> = {
  'payment.created': 'PENDIENTE',
  'payment.pending': 'EN_PROCESO',
  'payment.approved': 'PAGADA',
  'payment.partially_paid': 'PAGADA_PARCIALMENTE',
  'payment.rejected': 'CANCELADO',
  'payment.refunded': 'DEVUELTA',
  'payment.partially_refunded': 'DEVUELTA_PARCIALMENTE',
};

/**
 * Events that come from a payment transaction and carry its id. Refunds are not among
 * them: the sandbox names a transaction in a refund's event only when the refund
 * named one, and a sample stands for the usual refund, which names none.
 */
const WITH_TRANSACTION = new Set<Evento>([
  'payment.approved',
  'payment.partially_paid',
  'payment.rejected',
]);

export function isEvento(name: unknown): name is Evento {
  return typeof name === 'string' && (EVENTOS as readonly string[]).includes(name);
}

/**
 * A notification body as `webhook trigger` edits it: the fields of the wire's
 * EventoBody (src/api/schemas.ts), any of which --set may change or add to.
 */
export type EventBody = Omit<EventoBody, 'event' | 'estado'> & {
  event: string;
  estado: string;
  [field: string]: unknown;
};

export interface SampleBase {
  cobro_id?: number;
  codigo?: string;
  /** Requested amount (decimal string). */
  monto?: string;
  /** Amount collected so far on the real payment request, if known. */
  monto_cobrado?: string;
  transaccion_id?: number | null;
}

/**
 * A body as the service would send it for `event`. `monto_cobrado` follows the event:
 * nothing collected before a payment, everything after a full one, half after a
 * partial one; refunds keep what was collected.
 */
export function sampleBody(event: Evento, base: SampleBase = {}): EventoBody {
  const monto = base.monto ?? DEFAULTS.triggerMonto;
  const cents = parseAmount(monto);
  let cobrado: string;
  switch (event) {
    case 'payment.created':
    case 'payment.pending':
    case 'payment.rejected':
      cobrado = '0.00';
      break;
    case 'payment.partially_paid':
      cobrado = formatCents(percentOf(cents, '50'));
      break;
    default:
      cobrado =
        base.monto_cobrado && parseAmount(base.monto_cobrado) > 0n
          ? base.monto_cobrado
          : formatCents(cents);
  }
  return {
    event,
    cobro_id: base.cobro_id ?? 1042,
    codigo: base.codigo ?? 'K7QM3XW9PA',
    estado: ESTADO_OF[event],
    monto: formatCents(cents),
    monto_cobrado: cobrado,
    transaccion_id:
      base.transaccion_id !== undefined
        ? base.transaccion_id
        : WITH_TRANSACTION.has(event)
          ? 1
          : null,
  };
}

/** What a person wants to see of a notification; nulls where the body does not say. */
export interface EventSummary {
  event: string | null;
  cobro_id: number | null;
  codigo: string | null;
  estado: string | null;
  monto: string | null;
  monto_cobrado: string | null;
  /** The body is valid UTF-8 JSON object. */
  json: boolean;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The body as text when it is valid UTF-8, else undefined. */
export function decodeUtf8(body: Uint8Array): string | undefined {
  try {
    return utf8.decode(body);
  } catch {
    return undefined;
  }
}

/** Reads the usual fields of a body, whatever it holds; never throws. */
export function summarize(body: Uint8Array | string, headerEvent?: string | null): EventSummary {
  const empty: EventSummary = {
    event: headerEvent ?? null,
    cobro_id: null,
    codigo: null,
    estado: null,
    monto: null,
    monto_cobrado: null,
    json: false,
  };
  const text = typeof body === 'string' ? body : decodeUtf8(body);
  if (text === undefined) return empty;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return empty;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return empty;
  const o = value as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  return {
    event: str(o.event) ?? headerEvent ?? null,
    cobro_id:
      typeof o.cobro_id === 'number' && Number.isSafeInteger(o.cobro_id) ? o.cobro_id : null,
    codigo: str(o.codigo),
    estado: str(o.estado),
    monto: str(o.monto),
    monto_cobrado: str(o.monto_cobrado),
    json: true,
  };
}
