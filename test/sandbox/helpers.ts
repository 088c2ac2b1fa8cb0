// What the sandbox's own tests share: a bounded wait and the fields of each resource.
// Their sandbox is startSandbox() of test/helpers/sandbox.ts, their app startReceiver()
// of test/helpers/receiver.ts.

import { waitFor } from '../helpers/wait.js';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until check() gives a value (anything but undefined or false), or fails after timeoutMs: waitFor of test/helpers/wait.ts. */
export function eventually<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 15_000,
): Promise<T> {
  return waitFor('a condition of the sandbox', check, timeoutMs, 25);
}

export const COBRO_FIELDS = [
  'id',
  'codigo',
  'concepto',
  'monto',
  'monto_cobrado',
  'estado',
  'url',
  'cvu',
  'qr',
  'referencia',
  'medios',
  'vencimiento',
  'success_url',
  'error_url',
  'created_at',
  'updated_at',
];
export const TRANSACCION_FIELDS = [
  'id',
  'cobro_id',
  'medio',
  'monto',
  'te_cobramos',
  'te_queda',
  'estado',
  'codigo',
  'fecha',
  'acreditacion',
];
export const DEVOLUCION_FIELDS = ['id', 'cobro_id', 'monto', 'tipo', 'estado', 'created_at'];
export const LIQUIDACION_FIELDS = [
  'id',
  'transaccion_id',
  'cobro_id',
  'bruto',
  'te_cobramos',
  'te_queda',
  'fecha_operacion',
  'fecha_estimada',
  'estado',
];
export const EVENT_FIELDS = [
  'event',
  'cobro_id',
  'codigo',
  'estado',
  'monto',
  'monto_cobrado',
  'transaccion_id',
];
export const LOCAL = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
