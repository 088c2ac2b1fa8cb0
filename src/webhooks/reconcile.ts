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

/** What a journal entry is remembered by: no headers, no body. */
interface Told {
  id: string;
  received_at: string;
  estado: string | null;
  event: string | null;
  target: string | null;
}

const told = (e: JournalEntry): Told => ({
  id: e.id,
  received_at: e.received_at,
  estado: e.estado,
  event: e.event,
  target: e.target,
});

/**
 * What the journal says about each request, read once, oldest first, as it streams:
 * the last notification the app accepted and those it did not, each by its id, state,
 * event, time and target only (never its headers or body).
 */
export class JournalState {
  /** The last accepted notification of each request. */
  private readonly accepted = new Map<number, Told>();
  /** Per request, the verified notifications the app did not accept, in the journal's order. */
  private readonly pending = new Map<number, Told[]>();
  inicio: string | null = null;
  private byEvent = new Map<string, string | null>();
  private lastTarget: string | null = null;
  private hiddenTarget = false;

  add(e: JournalEntry): void {
    if (e.source === 'listen' && (this.inicio === null || e.received_at < this.inicio))
      this.inicio = e.received_at;
    if (e.target && e.verification.valid) {
      // Where the app was last sent each event, and anything: the newest wins.
      const ok = usable(e.target);
      this.lastTarget = ok ? e.target : null;
      this.hiddenTarget = !ok;
      if (e.event !== null) this.byEvent.set(e.event, ok ? e.target : null);
    }
    if (e.cobro_id === null || !e.verification.valid) return;
    if (accepted(e)) {
      this.accepted.set(e.cobro_id, told(e));
      return;
    }
    const list = this.pending.get(e.cobro_id);
    if (list) list.push(told(e));
    else this.pending.set(e.cobro_id, [told(e)]);
  }

  /** Where to send `event`: where it last went, or where anything last went. */
  targetFor(event: string | null): string | null {
    return (event !== null && this.byEvent.get(event)) || this.lastTarget;
  }

  get appUrl(): string | null {
    return this.lastTarget;
  }

  get appUrlHidden(): boolean {
    return this.hiddenTarget;
  }

  lastAccepted(cobroId: number): Told | undefined {
    return this.accepted.get(cobroId);
  }

  heardOf(cobroId: number): boolean {
    return this.accepted.has(cobroId) || this.pending.has(cobroId);
  }

  /** The last notification of `estado` the app did not accept, when not older than the last it did. */
  unsent(cobroId: number, estado: string): Told | undefined {
    const last = this.accepted.get(cobroId);
    return (this.pending.get(cobroId) ?? [])
      .filter((e) => e.estado === estado && (!last || e.received_at >= last.received_at))
      .at(-1);
  }
}

/** The journal's state, read from its entries (oldest first). */
export function journalState(journal: Iterable<JournalEntry>): JournalState {
  const state = new JournalState();
  for (const e of journal) state.add(e);
  return state;
}

export interface JudgeOptions {
  forwardTo?: string | undefined;
  zone: string;
  anteriores?: boolean;
}

/**
 * One request judged against the journal: the difference that brings the app up to
 * date, 'anterior' when it is older than the journal (not judged), undefined when the
 * app knows its state.
 */
export function judge(
  c: Cobro,
  state: JournalState,
  options: JudgeOptions,
): Diferencia | 'anterior' | undefined {
  const { forwardTo, zone } = options;
  const last = state.lastAccepted(c.id);
  if (last && last.estado === c.estado) return undefined;
  const heard = state.heardOf(c.id);
  // The journal's start as the service writes its dates, to compare with updated_at.
  const since = state.inicio === null ? null : serviceTime(state.inicio, zone);
  // Changed in the very second the journal began: nothing tells which came first, so apart too.
  if (
    !heard &&
    options.anteriores !== true &&
    (since === null || localDate(c.updated_at, zone) <= since)
  )
    return 'anterior';
  // A verified event for the current state that the app did not take: send it again.
  const unsent = state.unsent(c.id, c.estado);
  const current = isKnown(c.estado, ESTADOS_COBRO) ? EVENT_OF[c.estado] : null;
  const evento = (unsent?.event as Evento | null | undefined) ?? current;
  const to =
    forwardTo ?? (unsent && usable(unsent.target) ? unsent.target : state.targetFor(evento));
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
  return {
    cobro_id: c.id,
    codigo: c.codigo,
    app: last?.estado ?? null,
    servicio: c.estado,
    accion,
    evento,
    evento_id: unsent?.id ?? null,
    forward_to: accion === 'ninguna' ? null : to,
    arreglo,
  };
}

/**
 * Every request whose state the app has not been told, in the order of `cobros`, and
 * those older than the journal apart (`anteriores: true`: judged too, as never heard
 * of). `zone` is the service's: its dates are local. `journal` is read once, oldest first.
 */
export function reconcile(
  cobros: Iterable<Cobro>,
  journal: Iterable<JournalEntry> | JournalState,
  options: JudgeOptions,
): Conciliacion {
  const state = journal instanceof JournalState ? journal : journalState(journal);
  const diferencias: Diferencia[] = [];
  const anteriores: number[] = [];
  for (const c of cobros) {
    const d = judge(c, state, options);
    if (d === 'anterior') anteriores.push(c.id);
    else if (d) diferencias.push(d);
  }
  return {
    diferencias,
    anteriores,
    inicio: state.inicio,
    app_url: options.forwardTo ?? state.appUrl,
    app_url_oculta: options.forwardTo === undefined && state.appUrlHidden,
  };
}
