// Helpers over stored payment requests shared by the API and the control plane:
// what a request looks like now (its payer link at this sandbox's address, cvu/qr
// once ready), expiry checked on every read,
// and the notification body of a change.
import type { Evento } from '../api/enums.js';
import { notFound } from './sandbox-error.js';
import * as state from './state.js';
import type { CobroRec, CobroWire, Emitted } from './store.js';
import type { Deps } from './types.js';

/** Parses an id path segment; anything but a positive integer is a missing resource. */
export function idOf(text: string | undefined): number {
  if (!text || !/^[1-9][0-9]{0,14}$/.test(text)) throw notFound();
  return Number(text);
}

/** The merchant's payment request, refreshed (expired when due); 404 for any other. */
export function findCobro(
  deps: Deps,
  m: number,
  idText: string | undefined,
  now: number,
): CobroRec {
  const rec = deps.store.cobros.get(m, idOf(idText));
  if (!rec) throw notFound();
  return refresh(deps, rec, now);
}

/**
 * Applies what time does by itself: a request past its expiry becomes CANCELADO
 * (journaled, with payment.rejected); cvu/qr appear once ready, moving updated_at
 * (derived from readyAt, so nothing needs writing).
 */
export function refresh(deps: Deps, rec: CobroRec, now: number): CobroRec {
  deps.store.linked(rec);
  if (state.isExpired(rec.wire.estado, rec.vencMs, now)) {
    const move = state.expire(rec.wire.estado);
    const next = withWire(rec, { estado: move.estado }, deps.clock.local(now));
    deps.store.commit([['cobro', next]], [eventOf(next, move.event, null)]);
    rec = next;
  }
  if (
    rec.wire.cvu === null &&
    rec.wire.qr === null &&
    now >= rec.readyAt &&
    (rec.wire.medios.transferencia || rec.wire.medios.qr)
  ) {
    rec.wire.cvu = rec.wire.medios.transferencia ? rec.cvu : null;
    rec.wire.qr = rec.wire.medios.qr ? rec.qr : null;
    // The request changed when they appeared: updated_at says so. Derived from readyAt
    // (the same after a restart, nothing to journal), and never moved back.
    const readyLocal = deps.clock.local(rec.readyAt);
    if (readyLocal > rec.wire.updated_at) rec.wire.updated_at = readyLocal;
  }
  return rec;
}

/** A copy of the record with some wire fields changed and updated_at set. */
export function withWire(
  rec: CobroRec,
  patch: Partial<CobroWire>,
  updatedAt: string,
  extra: Partial<CobroRec> = {},
): CobroRec {
  return { ...rec, ...extra, wire: { ...rec.wire, ...patch, updated_at: updatedAt } };
}

export function eventOf(rec: CobroRec, event: Evento, transaccionId: number | null): Emitted {
  return {
    merchant: rec.merchant,
    body: {
      event,
      cobro_id: rec.wire.id,
      codigo: rec.wire.codigo,
      estado: rec.wire.estado,
      monto: rec.wire.monto,
      monto_cobrado: rec.wire.monto_cobrado,
      transaccion_id: transaccionId,
    },
  };
}
