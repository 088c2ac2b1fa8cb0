// What the merchant's app was told against what the service says now (`svc webhook
// conciliar`). The app was told what it accepted: the last notification per payment
// request in the journal that verified and that the app answered 2xx (received,
// replayed or triggered). Where that state is not the service's, the difference says
// how to fix it: replay an event the journal holds for that state that the app did
// not accept, or, when none ever arrived, trigger the event of the current state.
// A request the journal never heard of and that has not changed since the journal's
// first event is older than the journal: nothing says whether the app heard of it,
// so it is counted apart, not called missing.
import type { Cobro, EstadoCobro, Evento } from '../api/schemas.js';
import { ESTADOS_COBRO, isKnown } from '../api/enums.js';
import { isMaskedTarget } from '../api/address.js';
import { localDate, serviceTime } from '../domain/dates.js';
import { ESTADO_OF } from './events.js';
import type { JournalEntry } from './event-journal.js';

/** What brings the app up to date: `replay` a journaled event, `trigger` a new one, or nothing svc can do. */
export type Accion = 'replay' | 'trigger' | 'ninguna';

/** Where the fixes go when neither --forward-to nor the journal says: the words a person replaces. */
export const URL_PLACEHOLDER = 'URL_DE_TU_APP';

export interface Diferencia {
  cobro_id: number;
  codigo: string;
  /** The state in the last notification the app accepted; null when it accepted none. */
  app: string | null;
  /** The service's state, as it sent it (possibly one svc does not know). */
  servicio: string;
  accion: Accion;
  /** The event that tells the app the service's state; null when svc knows none. */
  evento: Evento | null;
  /** With `replay`: the journal's entry to send again. */
  evento_id: string | null;
  /** Where the fix goes: --forward-to, else where the journal says the app is; null when neither knows. */
  forward_to: string | null;
  /** The command that brings the app up to date. */
  arreglo: string;
}

export interface Conciliacion {
  diferencias: Diferencia[];
  /** Requests older than the journal (no event about them, unchanged since its first one): not judged. */
  anteriores: number[];
  /** The journal's first event from the listener (ISO 8601 UTC); null when it has none. */
  inicio: string | null;
  /** The app's address the journal knows (the last one the listener forwarded to), when usable. */
  app_url: string | null;
  /** The journal knows the app's address only without its credentials (`***`): it cannot be sent to as it is. */
  app_url_oculta: boolean;
}

const EVENT_OF = Object.fromEntries(
  Object.entries(ESTADO_OF).map(([event, estado]) => [estado, event]),
) as Record<EstadoCobro, Evento>;

const accepted = (e: JournalEntry) => e.verification.valid && e.outcome === 'forwarded';
const usable = (target: string | null | undefined): target is string =>
  typeof target === 'string' && target !== '' && !isMaskedTarget(target);

/** Where the app was last sent `event` (or, failing that, anything), as the journal says. */
function knownTargets(journal: readonly JournalEntry[]) {
  const byEvent = new Map<string, string | null>();
  let last: string | null = null;
  let hidden = false;
  let seen = false;
  for (let i = journal.length - 1; i >= 0; i--) {
    const e = journal[i]!;
    if (!e.target || !e.verification.valid) continue;
    const ok = usable(e.target);
    if (!seen) {
      seen = true;
      if (ok) last = e.target;
      else hidden = true;
    }
    if (e.event !== null && !byEvent.has(e.event)) byEvent.set(e.event, ok ? e.target : null);
  }
  return {
    last,
    hidden,
    for: (event: string | null) => (event !== null && byEvent.get(event)) || last,
  };
}

/**
 * Every request whose state the app has not been told, in the order of `cobros`, and
 * those older than the journal apart (`anteriores: true`: judged too, as never heard
 * of). `zone` is the service's: its dates are local.
 */
export function reconcile(
  cobros: Iterable<Cobro>,
  journal: readonly JournalEntry[],
  options: { forwardTo?: string | undefined; zone: string; anteriores?: boolean },
): Conciliacion {
  const { forwardTo, zone } = options;
  const told = new Map<number, JournalEntry>();
  const pending = new Map<number, JournalEntry[]>();
  let inicio: string | null = null;
  for (const e of journal) {
    if (e.source === 'listen' && (inicio === null || e.received_at < inicio))
      inicio = e.received_at;
    if (e.cobro_id === null || !e.verification.valid) continue;
    if (accepted(e)) told.set(e.cobro_id, e);
    else {
      const list = pending.get(e.cobro_id);
      if (list) list.push(e);
      else pending.set(e.cobro_id, [e]);
    }
  }
  const targets = knownTargets(journal);
  // The journal's start as the service writes its dates, to compare with updated_at.
  const since = inicio === null ? null : serviceTime(inicio, zone);
  const diferencias: Diferencia[] = [];
  const anteriores: number[] = [];
  for (const c of cobros) {
    const last = told.get(c.id);
    if (last && last.estado === c.estado) continue;
    const heard = last !== undefined || pending.has(c.id);
    // Changed in the very second the journal began: nothing tells which came first, so apart too.
    if (
      !heard &&
      options.anteriores !== true &&
      (since === null || localDate(c.updated_at, zone) <= since)
    ) {
      anteriores.push(c.id);
      continue;
    }
    // A verified event for the current state that the app did not take: send it again.
    const unsent = (pending.get(c.id) ?? [])
      .filter((e) => e.estado === c.estado && (!last || e.received_at >= last.received_at))
      .at(-1);
    const current = isKnown(c.estado, ESTADOS_COBRO) ? EVENT_OF[c.estado] : null;
    const evento = (unsent?.event as Evento | null | undefined) ?? current;
    const to = forwardTo ?? (unsent && usable(unsent.target) ? unsent.target : targets.for(evento));
    const flag = ` --forward-to ${to ?? URL_PLACEHOLDER}`;
    // A state svc does not know has no event svc knows to send: said so, nothing guessed.
    const [accion, arreglo]: [Accion, string] = unsent
      ? [
          'replay',
          // Replay goes where the original went unless told otherwise.
          `svc webhook replay ${unsent.id}${to !== null && to === unsent.target && !forwardTo ? '' : flag}`,
        ]
      : current
        ? ['trigger', `svc webhook trigger ${current} --cobro ${c.id}${flag}`]
        : [
            'ninguna',
            `ninguno: ${c.estado} es un estado que svc no conoce y no sabe qué evento le corresponde; mirá svc caso ${c.id}`,
          ];
    diferencias.push({
      cobro_id: c.id,
      codigo: c.codigo,
      app: last?.estado ?? null,
      servicio: c.estado,
      accion,
      evento,
      evento_id: unsent?.id ?? null,
      forward_to: accion === 'ninguna' ? null : to,
      arreglo,
    });
  }
  return {
    diferencias,
    anteriores,
    inicio,
    app_url: forwardTo ?? targets.last,
    app_url_oculta: forwardTo === undefined && targets.hidden,
  };
}
