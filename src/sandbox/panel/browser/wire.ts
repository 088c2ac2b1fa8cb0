// What the sandbox answers the page. The service's resources are api/schemas.ts's own
// types, as the sandbox says them (Seed: only what the service's contract shows), imported
// as types only: no schema code reaches the browser. The shapes below are the sandbox's
// control plane (/_sandbox/…), with the fields the page reads; their definitions on the
// server side (sandbox/dispatcher.ts, faults.ts, time.ts) sit in Node modules this
// browser program cannot typecheck.
import type { Seed } from '../../../api/schemas.js';

export type Cobro = Seed['Cobro'];
export type Transaccion = Seed['Transaccion'];
export type Devolucion = Seed['Devolucion'];
export type Liquidacion = Seed['Liquidacion'];
export type Cargo = Seed['Cargo'];
export type { Cuenta } from '../../../api/schemas.js';

/** An event as /_sandbox/cobros/{id} lists it: its number, date and the body sent. */
export interface Evento {
  id: number;
  fecha: string;
  body: Seed['EventoBody'];
}
/** One delivery attempt (/_sandbox/entregas and the stream's `entrega`). */
export interface Entrega {
  id: number;
  event: string;
  evento_id: number;
  cobro_id: number;
  intento: number;
  status: number | null;
  ok: boolean;
  error?: string | null;
  latencia_ms: number;
  fecha: string;
  reenvio: boolean;
}
/** GET /_sandbox/cobros/{id}: a request whole. */
export interface Detalle {
  cobro: Cobro;
  queda_por_devolver: string;
  transacciones: Transaccion[];
  devoluciones: Devolucion[];
  liquidaciones: Liquidacion[];
  eventos: Evento[];
  entregas: Entrega[];
}
/** A line of /_sandbox/log and the stream's `log`. */
export interface LineaLog {
  id: number;
  fecha: string;
  method: string;
  path: string;
  status: number | null;
  ms: number;
  comercio: number | null;
  ensayo?: boolean;
}
/** An injected fault, as /_sandbox/fallas lists it. */
export interface Falla {
  id: number;
  method: string;
  path: string;
  action: string;
  status: number | null;
  delay_ms: number;
  count: number;
}
/** /_sandbox/reloj: the sandbox's clock, and what moving it made happen. */
export interface Reloj {
  ahora: string;
  tz: string;
  adelanto_ms: number;
  vencidos: number[];
  reintentos: number;
}
/** /_sandbox/liquidaciones/totales: one estimated date's sums. */
export interface TotalDia {
  fecha: string;
  cantidad: number;
  bruto: string;
  te_cobramos: string;
  te_queda: string;
}
