// A year of business for an empty sandbox (`svc sandbox --generar N`): N payment
// requests of the ready test merchant spread over the 365 days before now, each taken
// through the sandbox's own handlers at its own past moment, so amounts, fees,
// settlements, states and notifications are what the sandbox itself would have made.
// Most are paid (some in two parts, some in part only), some expire, some are
// rejected, some are refunded in full or in part. The same N gives the same history
// (a fixed seed), dated from the moment it runs. Written to the data file in one go
// (Store.bulk); its notifications count as delivered.
import { crearCon } from './handlers/cobros.js';
import { crear as devolver } from './handlers/devoluciones.js';
import { pagar, rechazar, type ControlDeps } from './control.js';
import { refresh } from './model.js';
import type { Deps } from './types.js';
import type { Merchant } from './store.js';
import { formatCents } from '../domain/money.js';
import { allowedMedios } from './fees.js';

const MINUTE = 60_000;
const DAY = 86_400_000;
/** How far back the history goes. */
export const YEAR_MS = 365 * DAY;
/** The most --generar makes in one start. */
export const MAX_GENERATED = 2_000_000;

const CONCEPTOS = [
  'Pedido web',
  'Seña de reserva',
  'Cuota mensual',
  'Servicio técnico',
  'Envío a domicilio',
  'Abono anual',
  'Curso de verano',
  'Reparación de equipo',
  'Consulta profesional',
  'Venta mostrador',
];

export interface Generated {
  cobros: number;
  /** By the state each request ended in. */
  estados: Record<string, number>;
  desde: string;
  hasta: string;
}

/** A small deterministic generator (mulberry32), uniform in [0, 1): the same N, the same history. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * Makes `count` requests for `merchant`, the first a year before `now`, the last a few
 * minutes before it, through the handlers; returns what it made. The store must have
 * no requests (the caller checks).
 */
export function generateYear(
  deps: Deps,
  merchant: Merchant,
  count: number,
  now: number,
): Generated {
  const rand = random(count);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const between = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo));
  const start = now - YEAR_MS;
  const step = (YEAR_MS - 10 * MINUTE) / count;
  const control = deps as ControlDeps;
  const at = (when: number, body: unknown, id?: number) => ({
    merchant,
    params: id === undefined ? [] : [String(id)],
    query: new URLSearchParams(),
    json: () => body,
    now: when,
  });
  const estados: Record<string, number> = {};
  deps.store.bulk(() => {
    for (let k = 0; k < count; k++) {
      const created = Math.floor(start + k * step);
      const cents = BigInt(between(500, 250_000)) * 100n + BigInt(pick([0, 0, 0, 50, 99]));
      const monto = formatCents(cents);
      const reply = crearCon(
        deps,
        at(created, {
          concepto: pick(CONCEPTOS),
          monto,
          referencia: `PED-${String(k + 1).padStart(7, '0')}`,
        }),
      );
      const id = (reply.body as { data: { id: number } }).data.id;
      const rec = deps.store.cobros.get(merchant.id, id)!;
      const medio = pick(allowedMedios(rec.wire.medios));
      // What happens to it, and when: never after now.
      const fate = rand();
      const paidAt = Math.min(created + between(MINUTE, 2 * DAY), now - 1000);
      const txOf = (r: { headers?: Record<string, string> }) =>
        Number(r.headers?.['x-sandbox-transaccion']);
      if (fate < 0.1) {
        // Not paid: expires after its 7 days (still open when those have not passed).
        if (rec.vencMs! <= now) refresh(deps, rec, rec.vencMs!);
      } else if (fate < 0.14) {
        rechazar(control, at(paidAt, { medio }, id));
      } else if (fate < 0.22) {
        // Paid in part only.
        pagar(control, at(paidAt, { medio, monto: formatCents(cents / 2n) }, id));
      } else if (fate < 0.27) {
        // Paid in two parts.
        pagar(control, at(paidAt, { medio, monto: formatCents(cents / 2n) }, id));
        const second = Math.min(paidAt + between(MINUTE, DAY), now - 500);
        pagar(control, at(second, { medio }, id));
      } else {
        const paid = pagar(control, at(paidAt, { medio }, id));
        const refundAt = Math.min(paidAt + between(DAY, 20 * DAY), now - 100);
        if (fate >= 0.9 && refundAt > paidAt) {
          // Refunded: in full (0.90–0.95) or a part of it.
          const amount = fate < 0.95 ? monto : formatCents(cents / 4n);
          devolver(deps, at(refundAt, { monto: amount, transaccion_id: txOf(paid) }, id));
        }
      }
      const estado = deps.store.cobros.get(merchant.id, id)!.wire.estado;
      estados[estado] = (estados[estado] ?? 0) + 1;
    }
  });
  return {
    cobros: count,
    estados,
    desde: deps.clock.local(start),
    hasta: deps.clock.local(Math.floor(start + (count - 1) * step)),
  };
}
