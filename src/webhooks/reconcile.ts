// What the merchant's app was told against what the service says now (`svc webhook
// conciliar`). The app was told what it accepted: the last notification per payment
// request in the journal that verified and that the app answered 2xx (received,
// replayed or triggered). Where that state is not the service's, the difference says
// how to fix it: replay an event the journal holds for that state that the app did
// not accept, or, when none ever arrived, trigger the event of the current state.
import type { Cobro, EstadoCobro, Evento } from '../api/schemas.js';
import { ESTADOS_COBRO, isKnown } from '../api/enums.js';
import { ESTADO_OF } from './events.js';
import type { JournalEntry } from './event-journal.js';

export interface Diferencia {
  cobro_id: number;
  codigo: string;
  /** The state in the last notification the app accepted; null when it accepted none. */
  app: string | null;
  /** The service's state, as it sent it (possibly one svc does not know). */
  servicio: string;
  /** The command that brings the app up to date. */
  arreglo: string;
}

const EVENT_OF = Object.fromEntries(
  Object.entries(ESTADO_OF).map(([event, estado]) => [estado, event]),
) as Record<EstadoCobro, Evento>;

const accepted = (e: JournalEntry) => e.verification.valid && e.outcome === 'forwarded';

/** Every request whose state the app has not been told, in the order of `cobros`. */
export function reconcile(
  cobros: Iterable<Cobro>,
  journal: readonly JournalEntry[],
  forwardTo?: string,
): Diferencia[] {
  const told = new Map<number, JournalEntry>();
  const pending = new Map<number, JournalEntry[]>();
  for (const e of journal) {
    if (e.cobro_id === null || !e.verification.valid) continue;
    if (accepted(e)) told.set(e.cobro_id, e);
    else {
      const list = pending.get(e.cobro_id);
      if (list) list.push(e);
      else pending.set(e.cobro_id, [e]);
    }
  }
  const out: Diferencia[] = [];
  for (const c of cobros) {
    const last = told.get(c.id);
    if (last && last.estado === c.estado) continue;
    // A verified event for the current state that the app did not take: send it again.
    const unsent = (pending.get(c.id) ?? [])
      .filter((e) => e.estado === c.estado && (!last || e.received_at >= last.received_at))
      .at(-1);
    // A state svc does not know has no event svc knows to send: said so, nothing guessed.
    const arreglo = unsent
      ? `svc webhook replay ${unsent.id}${forwardTo ? ` --forward-to ${forwardTo}` : ''}`
      : isKnown(c.estado, ESTADOS_COBRO)
        ? `svc webhook trigger ${EVENT_OF[c.estado]} --cobro ${c.id}${forwardTo ? ` --forward-to ${forwardTo}` : ' --forward-to URL_DE_TU_APP'}`
        : `ninguno: ${c.estado} es un estado que svc no conoce y no sabe qué evento le corresponde; mirá svc caso ${c.id}`;
    out.push({
      cobro_id: c.id,
      codigo: c.codigo,
      app: last?.estado ?? null,
      servicio: c.estado,
      arreglo,
    });
  }
  return out;
}
