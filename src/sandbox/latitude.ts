// What a real service may send that the seed leaves open, played by the sandbox on
// request (`svc sandbox --campos-extra --fechas-con-zona --estados-nuevos`): fields the
// seed does not show, dates with an ISO 8601 offset, a state or a payment method the
// seed does not list. Only the answers change: the sandbox's records and its own logic
// stay the seed's, so svc can be tried against a service that differs within the seed.
import { isServiceDate, DATE_FIELDS } from '../domain/dates.js';
import type { Reply } from './types.js';

export interface Latitude {
  /** Every record gains fields the seed does not show (`canal`, `metadatos`). */
  extraFields?: boolean;
  /** The dates of records with an odd id go as the same instant in UTC, ISO 8601 (`…Z`); the rest stay local. */
  offsetDates?: boolean;
  /** Records whose id is a multiple of 3 carry a state (and a transaction a medio) the seed does not list. */
  newStates?: boolean;
}

/** The states and medio `newStates` sends, one a kind of record (none is in the seed). */
export const NEW_VALUES = {
  cobro: 'EN_REVISION',
  transaccion: 'EN_DISPUTA',
  medio: 'billetera',
  devolucion: 'EN_REVISION',
  liquidacion: 'retenido',
} as const;

/** True when any of the latitudes is on. */
export const anyLatitude = (l: Latitude | undefined): l is Latitude =>
  l !== undefined && Boolean(l.extraFields || l.offsetDates || l.newStates);

/** The reply of a /v1 endpoint as a service with this latitude would say it. */
export function withLatitude(reply: Reply, path: string, latitude: Latitude, zone: string): Reply {
  const body = reply.body as { data?: unknown } | undefined;
  if (!path.startsWith('/v1/') || reply.status >= 300 || !body || typeof body !== 'object')
    return reply;
  const kind = kindOf(path);
  const one = (item: unknown) => record(item, kind, latitude, zone);
  const data = Array.isArray(body.data) ? body.data.map(one) : one(body.data);
  return { ...reply, body: { ...body, data } };
}

type Kind = 'cobro' | 'transaccion' | 'devolucion' | 'liquidacion' | 'otro';

function kindOf(path: string): Kind {
  // /v1/cobros/4/devoluciones answers a refund; /v1/cobros/4 a request.
  if (/\/devoluciones(\/|$)/.test(path)) return 'devolucion';
  if (/\/transacciones(\/|$)/.test(path)) return 'transaccion';
  if (/\/liquidaciones(\/|$)/.test(path)) return 'liquidacion';
  if (/^\/v1\/cobros(\/|$)/.test(path)) return 'cobro';
  return 'otro';
}

function record(item: unknown, kind: Kind, latitude: Latitude, zone: string): unknown {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return item;
  const r = { ...(item as Record<string, unknown>) };
  const id = typeof r.id === 'number' ? r.id : 0;
  if (latitude.offsetDates && id % 2 === 1) {
    for (const field of DATE_FIELDS) {
      const v = r[field];
      if (typeof v === 'string' && isServiceDate(v)) r[field] = inUtc(v, zone);
    }
  }
  if (latitude.newStates && id > 0 && id % 3 === 0 && kind !== 'otro') {
    if ('estado' in r) r.estado = NEW_VALUES[kind];
    if (kind === 'transaccion' && 'medio' in r) r.medio = NEW_VALUES.medio;
  }
  if (latitude.extraFields && kind !== 'otro') {
    r.canal = 'api';
    r.metadatos = { origen: 'sandbox', version: 2 };
  }
  return r;
}

/** A local date of the sandbox's zone as the same instant in UTC: `2026-11-27T08:10:03Z`. */
function inUtc(local: string, zone: string): string {
  const wall = Date.UTC(
    Number(local.slice(0, 4)),
    Number(local.slice(5, 7)) - 1,
    Number(local.slice(8, 10)),
    Number(local.slice(11, 13)),
    Number(local.slice(14, 16)),
    Number(local.slice(17, 19)),
  );
  const fmt = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    timeZoneName: 'longOffset',
  });
  // Two passes settle the offset on both sides of a daylight-saving change.
  let ms = wall - offsetMinutes(fmt, wall) * 60_000;
  ms = wall - offsetMinutes(fmt, ms) * 60_000;
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

function offsetMinutes(fmt: Intl.DateTimeFormat, ms: number): number {
  const name = fmt.formatToParts(ms).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  const m = /GMT([+-])(\d{2}):(\d{2})/.exec(name);
  return m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : 0;
}
