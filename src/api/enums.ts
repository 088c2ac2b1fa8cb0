// The enumerations of the service interface (states, methods, events, error codes).
// Kept free of imports so that help and completions can use them without loading zod.

export const ESTADOS_COBRO = [
  'PENDIENTE',
  'EN_PROCESO',
  'PAGADA',
  'PAGADA_PARCIALMENTE',
  'CANCELADO',
  'DEVUELTA',
  'DEVUELTA_PARCIALMENTE',
] as const;
export type EstadoCobro = (typeof ESTADOS_COBRO)[number];

export const MEDIOS = ['transferencia', 'qr', 'debito', 'credito', 'prepaga'] as const;
export type Medio = (typeof MEDIOS)[number];

export const ESTADOS_TRANSACCION = ['ACREDITADO', 'RECHAZADO'] as const;
export type EstadoTransaccion = (typeof ESTADOS_TRANSACCION)[number];

export const TIPOS_DEVOLUCION = ['parcial', 'total'] as const;
export type TipoDevolucion = (typeof TIPOS_DEVOLUCION)[number];
export const ESTADOS_LIQUIDACION = ['estimado'] as const;
export type EstadoLiquidacion = (typeof ESTADOS_LIQUIDACION)[number];

export const EVENTOS = [
  'payment.created',
  'payment.pending',
  'payment.approved',
  'payment.partially_paid',
  'payment.rejected',
  'payment.refunded',
  'payment.partially_refunded',
] as const;
export type Evento = (typeof EVENTOS)[number];

export const ERROR_CODES = [
  'create_failed',
  'refund_failed',
  'sync_failed',
  'unauthorized',
  'comercio_no_listo',
  'not_found',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * Codes only the sandbox answers with: a refused simulated move and a bad control
 * request (`/_sandbox/`), a data file it cannot write (503), and an unexpected failure (500).
 */
export const SANDBOX_ERROR_CODES = [
  'invalid_state',
  'bad_request',
  'unavailable',
  'internal_error',
] as const;

/**
 * Whether a value svc read openly (a state, `tipo`, `medio` or event name a service
 * may add: schemas.ts, OPEN_FIELDS) is one svc knows. A command that decides from a
 * value decides only from a known one.
 */
export function isKnown<T extends string>(value: string, known: readonly T[]): value is T {
  return (known as readonly string[]).includes(value);
}

/**
 * The fields of each resource a client reads openly, with the values svc knows:
 * the seed leaves them open or a service may add values (schemas.ts reads them as
 * any text; tables mark an unknown one). Every other field is strict. The table of
 * strict and open fields in docs/fiabilidad.md is this one.
 */
export const OPEN_FIELDS = {
  cargo: { medio: MEDIOS },
  cobro: { estado: ESTADOS_COBRO },
  transaccion: { medio: MEDIOS, estado: ESTADOS_TRANSACCION },
  devolucion: { tipo: TIPOS_DEVOLUCION, estado: ESTADOS_COBRO },
  liquidacion: { estado: ESTADOS_LIQUIDACION },
  evento: { event: EVENTOS, estado: ESTADOS_COBRO },
} as const satisfies Record<string, Record<string, readonly string[]>>;
