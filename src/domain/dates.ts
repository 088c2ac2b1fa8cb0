// The expiry a person types (`--vencimiento`), turned into the ISO 8601 date-time with
// offset the service wants. Pure: the current instant and the time zone are passed in,
// so every form is unit-tested without touching the clock.
//
// Accepted forms (local = the given IANA zone, by default the service's: the machine's
// own zone never decides what a typed time means, see serviceZone):
//   2026-12-24T18:00:00-03:00   ISO 8601 with offset (Z, ±HH:MM or ±HHMM; seconds optional)
//   2026-12-24                  that day at 23:59:59 local (the whole day counts)
//   2026-12-24 18:00[:30]       that local date and time (also with T instead of the space)
//   24/12/2026 [18:00]          day/month/year as written in Spanish, local (the whole day without a time)
//   +3d  +12h  +30m             days, hours or minutes from now
// The result is always `YYYY-MM-DDTHH:MM:SS±HH:MM` in the local zone. A date in the
// past (or now), an impossible date (2026-02-30, 25:00) or a local time skipped by a
// daylight-saving change is refused, and so is one more than MAX_VENCIMIENTO_DAYS
// ahead (the service's limit, said before anything is sent).

import { DEFAULTS } from '../defaults.js';
import { DAY_WORDS, MAX_VENCIMIENTO_DAYS } from './rules.js';
import { printable } from '../text.js';
export class DateError extends Error {
  override name = 'DateError';
}

export interface DateOptions {
  /** Milliseconds since the epoch; default Date.now(). */
  now?: number;
  /** IANA zone; default the service's (DEFAULTS.timeZone). */
  timeZone?: string;
}

export interface Vencimiento {
  /** What is sent: ISO 8601 with the local offset, whole seconds. */
  iso: string;
  /** The instant, in milliseconds since the epoch. */
  ms: number;
}

const ISO_RE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;
const DMY_RE = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?:\s+(\d{1,2}):(\d{2})(?::(\d{2}))?)?$/;
const RELATIVE_RE = /^\+\s*(\d{1,5})\s*([dhm])$/i;
const UNIT_MS: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000 };
const HELP =
  'formatos: mañana, esta-semana, 24/12, 24/12/2026, "24/12/2026 18:00", 2026-12-24, "2026-12-24 18:00", 2026-12-24T18:00:00-03:00, +3d, +12h, +30m';

/**
 * The words people use for a day that comes (hoy, mañana, esta-semana: its Sunday) and a
 * day/month of this year (27/11), as the day/month/year --vencimiento reads; other text as it is.
 */
function dayWords(s: string, now: number, tz: string): string {
  const lower = s.toLowerCase();
  const words: Record<string, number> = { hoy: 0, mañana: 1, manana: 1 };
  const today = serviceTime(now, tz).slice(0, 10);
  const [y, m, d] = today.split('-').map(Number) as [number, number, number];
  const dmyOf = (offset: number) => {
    const t = new Date(Date.UTC(y, m - 1, d + offset));
    return `${t.getUTCDate()}/${t.getUTCMonth() + 1}/${t.getUTCFullYear()}`;
  };
  if (Object.hasOwn(words, lower)) return dmyOf(words[lower]!);
  if (lower === 'esta-semana')
    return dmyOf(6 - ((new Date(Date.UTC(y, m - 1, d)).getUTCDay() + 6) % 7));
  const dm = /^(\d{1,2})\/(\d{1,2})(\s+\d{1,2}:\d{2}(?::\d{2})?)?$/.exec(s);
  return dm ? `${dm[1]}/${dm[2]}/${y}${dm[3] ?? ''}` : s;
}

/** Parses `--vencimiento`; throws DateError with a message a person can act on. */
export function parseVencimiento(text: string, options: DateOptions = {}): Vencimiento {
  const now = options.now ?? Date.now();
  const tz = options.timeZone ?? DEFAULTS.timeZone;
  const fmt = formatter(tz);
  const s = text.trim();
  if (s === '') throw new DateError(`está vacío (${HELP})`);
  if (/[\u0000-\u001f\u007f]/.test(s)) throw new DateError('tiene caracteres de control');

  let ms: number;
  const rel = RELATIVE_RE.exec(s);
  const dmy = DMY_RE.exec(dayWords(s, now, tz));
  // 24/12/2026 [18:00] is the same local date as 2026-12-24 [18:00].
  const iso = ISO_RE.exec(
    dmy
      ? `${dmy[3]}-${dmy[2]!.padStart(2, '0')}-${dmy[1]!.padStart(2, '0')}${dmy[4] === undefined ? '' : ` ${dmy[4].padStart(2, '0')}:${dmy[5]}${dmy[6] === undefined ? '' : `:${dmy[6]}`}`}`
      : s,
  );
  if (rel) {
    const n = Number(rel[1]);
    if (n === 0) throw new DateError(`"${s}" es ahora mismo: el vencimiento tiene que ser futuro`);
    ms = now + n * UNIT_MS[rel[2]!.toLowerCase()]!;
  } else if (iso) {
    const [, y, mo, d, h, mi, sec, off] = iso;
    const hasTime = h !== undefined;
    if (!hasTime && off !== undefined)
      throw new DateError(`"${s}": una zona horaria necesita también la hora (${HELP})`);
    const wall = {
      y: Number(y),
      mo: Number(mo),
      d: Number(d),
      h: hasTime ? Number(h) : 23,
      mi: hasTime ? Number(mi) : 59,
      s: hasTime ? Number(sec ?? '0') : 59,
    };
    checkWall(wall, s);
    const wallMs = Date.UTC(wall.y, wall.mo - 1, wall.d, wall.h, wall.mi, wall.s);
    if (off !== undefined) {
      ms = wallMs - offsetOfText(off, s) * 60_000;
    } else {
      ms = wallToInstant(wallMs, fmt, s, tz);
    }
  } else {
    throw new DateError(`"${clip(s)}" no es una fecha que entienda (${HELP}; hora de ${tz})`);
  }
  ms = Math.floor(ms / 1000) * 1000;
  if (!Number.isFinite(ms) || Math.abs(ms) > 8.64e15)
    throw new DateError(`"${clip(s)}" está fuera de rango`);
  const result = formatIso(ms, fmt);
  if (ms <= now)
    throw new DateError(
      `"${clip(s)}" ya pasó (${result.replace('T', ' ')}, zona ${tz}): el vencimiento tiene que ser futuro`,
    );
  if (ms > now + MAX_VENCIMIENTO_DAYS * UNIT_MS.d!) {
    throw new DateError(
      `"${clip(s)}" (${result.replace('T', ' ')}) está a más de ${MAX_VENCIMIENTO_DAYS} días: el servicio acepta hasta ${MAX_VENCIMIENTO_DAYS} días desde ahora`,
    );
  }
  return { iso: result, ms };
}

/**
 * The service's zone, the one clock of everything a person types and reads: SVC_TZ,
 * else the profile's `zona` (set by `svc login --zona`, or taken from the sandbox),
 * else the service's default. Throws DateError naming where a bad zone came from.
 */
export function serviceZone(env: { SVC_TZ?: string }, profileZone?: string): string {
  const fromEnv = env.SVC_TZ?.trim();
  const [tz, from] = fromEnv
    ? [fromEnv, 'SVC_TZ']
    : profileZone
      ? [profileZone, 'la zona del perfil']
      : [DEFAULTS.timeZone, 'la zona'];
  if (!knownZone(tz))
    throw new DateError(
      `${from} "${clip(tz)}" no es una zona horaria conocida (ej. ${DEFAULTS.timeZone}, UTC)`,
    );
  return tz;
}

/** True when Intl knows the IANA zone. */
export function knownZone(tz: string): boolean {
  try {
    formatter(tz);
    return true;
  } catch {
    return false;
  }
}

/** The time of day of a date as the service writes it ("2026-11-25 09:12:43" → "09:12:43"), for lines on a narrow terminal; other text as it is. */
export function timeOfDay(serviceDate: string): string {
  return /^\d{4}-\d{2}-\d{2} /.test(serviceDate) ? serviceDate.slice(11) : serviceDate;
}

/**
 * An instant as the service writes its own dates: `YYYY-MM-DD HH:MM:SS` in its zone.
 * Text that is not a date comes back as it was.
 */
export function serviceTime(when: string | number, timeZone: string): string {
  const ms = typeof when === 'number' ? when : Date.parse(when);
  if (Number.isNaN(ms)) return String(when);
  const second = Math.floor(ms / 1000) * 1000;
  // The listener prints one line per event, hundreds in the same second: formatToParts
  // is the dear part, so the last second's text is kept.
  if (lastTime.second !== second || lastTime.zone !== timeZone) {
    lastTime = {
      second,
      zone: timeZone,
      text: new Date(wallOf(second, formatter(timeZone)))
        .toISOString()
        .slice(0, 19)
        .replace('T', ' '),
    };
  }
  return lastTime.text;
}
let lastTime = { second: NaN, zone: '', text: '' };

/** `YYYY-MM-DDTHH:MM:SS±HH:MM` of an instant in a zone. */
export function toLocalIso(ms: number, timeZone: string = DEFAULTS.timeZone): string {
  return formatIso(ms, formatter(timeZone));
}

interface Wall {
  y: number;
  mo: number;
  d: number;
  h: number;
  mi: number;
  s: number;
}

function checkWall(w: Wall, s: string): void {
  const probe = new Date(Date.UTC(w.y, w.mo - 1, w.d));
  if (w.mo < 1 || w.mo > 12 || probe.getUTCDate() !== w.d || probe.getUTCMonth() !== w.mo - 1) {
    throw new DateError(`"${clip(s)}" no es una fecha del calendario`);
  }
  if (w.h > 23 || w.mi > 59 || w.s > 59)
    throw new DateError(`"${clip(s)}" no es una hora válida (00:00 a 23:59)`);
}

/** Minutes east of UTC of an offset such as Z, -03:00, +0530, -03. */
function offsetOfText(off: string, s: string): number {
  if (off === 'Z' || off === 'z') return 0;
  const sign = off.startsWith('-') ? -1 : 1;
  const digits = off.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = digits.length > 2 ? Number(digits.slice(2)) : 0;
  if (hours > 14 || minutes > 59)
    throw new DateError(`"${clip(s)}": la zona horaria ${off} no existe`);
  return sign * (hours * 60 + minutes);
}

type Formatter = Intl.DateTimeFormat;

/** Intl parts of a wall-clock date-time (24 h, two digits), shared with the sandbox's clock. */
export const WALL_CLOCK: Intl.DateTimeFormatOptions = {
  hourCycle: 'h23',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
};

const formatters = new Map<string, Formatter>();

/** One formatter per zone (building one costs more than formatting a table). */
function formatter(tz: string): Formatter {
  let fmt = formatters.get(tz);
  if (fmt) return fmt;
  try {
    fmt = new Intl.DateTimeFormat('en-US', { timeZone: tz, ...WALL_CLOCK });
  } catch {
    throw new DateError(`zona horaria desconocida: "${clip(tz)}"`);
  }
  formatters.set(tz, fmt);
  return fmt;
}

/** The local wall clock of an instant, as if it were UTC (ms). */
function wallOf(ms: number, fmt: Formatter): number {
  const p: Record<string, number> = {};
  for (const part of fmt.formatToParts(ms))
    if (part.type !== 'literal') p[part.type] = Number(part.value);
  return Date.UTC(p.year!, p.month! - 1, p.day!, p.hour! % 24, p.minute!, p.second!);
}

/** Minutes east of UTC of the zone at an instant. */
function offsetAt(ms: number, fmt: Formatter): number {
  const whole = Math.floor(ms / 1000) * 1000;
  return Math.round((wallOf(whole, fmt) - whole) / 60_000);
}

/** The instant whose local wall clock is wallMs; refuses times a DST change skips. */
function wallToInstant(wallMs: number, fmt: Formatter, s: string, tz: string): number {
  // Two passes settle the offset on both sides of a change.
  let ms = wallMs - offsetAt(wallMs, fmt) * 60_000;
  ms = wallMs - offsetAt(ms, fmt) * 60_000;
  if (wallOf(ms, fmt) !== wallMs) {
    throw new DateError(
      `"${clip(s)}" no existe en la zona ${tz} (cambio de horario); elegí otra hora`,
    );
  }
  return ms;
}

function formatIso(ms: number, fmt: Formatter): string {
  const off = offsetAt(ms, fmt);
  const wall = new Date(wallOf(ms, fmt)).toISOString().slice(0, 19);
  const sign = off < 0 ? '-' : '+';
  const abs = Math.abs(off);
  return `${wall}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

const pad = (n: number) => String(n).padStart(2, '0');

const clip = (s: string) => printable(s, 40);

/**
 * One bound of `--desde` / `--hasta` on the lists, as the day `YYYY-MM-DD` in the service's
 * zone (bounds are whole days and both inclusive). Forms: hoy, ayer, 7d (seven days ago),
 * este-mes and mes-pasado (their first day for --desde, their last for --hasta),
 * 2026-11-01 and 01/11/2026. The service has no date filter: svc compares these days with
 * the first ten characters of the dates it reads (`YYYY-MM-DD HH:MM:SS`, local).
 */
export function parseDayBound(
  text: string,
  bound: 'desde' | 'hasta',
  options: DateOptions = {},
): string {
  const s = text.trim().toLowerCase();
  const today = serviceTime(options.now ?? Date.now(), options.timeZone ?? DEFAULTS.timeZone).slice(
    0,
    10,
  );
  const [y, m, d] = today.split('-').map(Number) as [number, number, number];
  const day = (yy: number, mm: number, dd: number) =>
    new Date(Date.UTC(yy, mm - 1, dd)).toISOString().slice(0, 10);
  if (s === 'hoy') return today;
  if (s === 'ayer') return day(y, m, d - 1);
  if (s === 'mañana' || s === 'manana') return day(y, m, d + 1);
  const shift = /^([+-]?)(\d{1,4})d$/.exec(s);
  if (shift) {
    const n = Number(shift[2]);
    // "--hasta 7d" reads as "within seven days" as much as "seven days ago": the sign says which.
    if (shift[1] === '' && bound === 'hasta' && n > 0)
      throw new DateError(
        `"${clip(text)}" se lee de dos formas: hace ${n} días (-${n}d) o dentro de ${n} días (+${n}d); escribí uno de los dos`,
      );
    return day(y, m, shift[1] === '+' ? d + n : d - n);
  }
  // Day 0 of a month is the last day of the month before it.
  if (s === 'este-mes') return bound === 'desde' ? day(y, m, 1) : day(y, m + 1, 0);
  if (s === 'mes-pasado') return bound === 'desde' ? day(y, m - 1, 1) : day(y, m, 0);
  // A week runs Monday to Sunday, as calendars in Argentina print it.
  const weekday = (new Date(Date.UTC(y, m - 1, d)).getUTCDay() + 6) % 7;
  if (s === 'esta-semana')
    return bound === 'desde' ? day(y, m, d - weekday) : day(y, m, d - weekday + 6);
  if (s === 'semana-pasada')
    return bound === 'desde' ? day(y, m, d - weekday - 7) : day(y, m, d - weekday - 1);
  const iso = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  // 27/11 is this year's.
  const dmy = /^(\d{1,2})\/(\d{1,2})(?:\/(\d{4}))?$/.exec(s);
  const parts = iso
    ? [iso[1], iso[2], iso[3]]
    : dmy
      ? [dmy[3] ?? String(y), dmy[2], dmy[1]]
      : undefined;
  if (!parts) throw new DateError(`"${clip(text)}" no es una fecha (${DAY_WORDS})`);
  const [yy, mm, dd] = parts.map(Number) as [number, number, number];
  const written = day(yy, mm, dd);
  if (mm < 1 || mm > 12 || Number(written.slice(8)) !== dd)
    throw new DateError(`"${clip(text)}" no es una fecha del calendario`);
  return written;
}

// --- dates as the service writes them ---------------------------------------------
// The seed shows local date-times `YYYY-MM-DD HH:MM:SS` in the service's zone. A service
// may also write an instant with its ISO 8601 offset (`2026-11-27T05:10:03-03:00`,
// `…Z`, `…+00:00`): svc reads both, shows both in the service's zone, and compares
// them as the instants they are, so a list that mixes them filters and sorts right.

const NAIVE_RE = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;
const OFFSET_RE =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(Z|z|[+-]\d{2}:?\d{2})$/;

/** The fields of the service's records that hold a date. */
export const DATE_FIELDS = [
  'created_at',
  'updated_at',
  'vencimiento',
  'fecha',
  'acreditacion',
  'fecha_operacion',
  'fecha_estimada',
] as const;

interface ServiceDate {
  /** The wall clock written, as if it were UTC (ms). */
  wall: number;
  /** Minutes east of UTC, when the date says its offset. */
  offset?: number;
}

function readServiceDate(text: string): ServiceDate | undefined {
  const m = NAIVE_RE.exec(text) ?? OFFSET_RE.exec(text);
  if (!m) return undefined;
  const w = {
    y: Number(m[1]),
    mo: Number(m[2]),
    d: Number(m[3]),
    h: Number(m[4]),
    mi: Number(m[5]),
    s: Number(m[6]),
  };
  try {
    checkWall(w, text);
  } catch {
    return undefined;
  }
  const wall = Date.UTC(w.y, w.mo - 1, w.d, w.h, w.mi, w.s);
  if (m[7] === undefined) return { wall };
  try {
    return { wall, offset: offsetOfText(m[7], text) };
  } catch {
    return undefined;
  }
}

/**
 * A date as the service may write it: local `YYYY-MM-DD HH:MM:SS`, or ISO 8601 with its
 * offset (T or a space, optional fractions of a second, Z or ±HH:MM): a real calendar
 * day and time, an offset that exists.
 */
export function isServiceDate(text: string): boolean {
  return readServiceDate(text) !== undefined;
}

/** True when the date says its own offset (it is an instant, not a local wall clock). */
export function hasOffset(text: string): boolean {
  return readServiceDate(text)?.offset !== undefined;
}

/**
 * A service date as the service's zone reads it, `YYYY-MM-DD HH:MM:SS`: a local one as
 * it is, one with an offset moved to that zone (to the second). Other text as it is.
 */
export function localDate(text: string, timeZone: string): string {
  // The seed's form is 19 characters; one with an offset is longer (a list of a million reads this).
  if (text.length <= 19) return text;
  const date = readServiceDate(text);
  if (date?.offset === undefined) return text;
  return serviceTime(date.wall - date.offset * 60_000, timeZone);
}

/** The instant of a service date (ms), a local one read in the service's zone; NaN for other text. */
export function dateInstant(text: string, timeZone: string): number {
  const date = readServiceDate(text);
  if (!date) return NaN;
  if (date.offset !== undefined) return date.wall - date.offset * 60_000;
  const fmt = formatter(timeZone);
  // A local time a daylight-saving change skips or repeats: the offset before it.
  const ms = date.wall - offsetAt(date.wall, fmt) * 60_000;
  return date.wall - offsetAt(ms, fmt) * 60_000;
}

/** Orders two service dates by the instants they are (text that is no date last, as text). */
export function compareDates(a: string, b: string, timeZone: string): number {
  const x = dateInstant(a, timeZone);
  const y = dateInstant(b, timeZone);
  if (Number.isNaN(x) || Number.isNaN(y)) {
    if (Number.isNaN(x) !== Number.isNaN(y)) return Number.isNaN(x) ? 1 : -1;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  return x - y;
}

/**
 * A record with its dates as the service's zone reads them (localDate on DATE_FIELDS),
 * to show and to reckon days with; the same object when no date has an offset, so
 * records of a service that writes local dates are not copied.
 */
export function inZone<T>(record: T, timeZone: string): T {
  if (record === null || typeof record !== 'object') return record;
  const r = record as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  for (const field of DATE_FIELDS) {
    const v = r[field];
    if (typeof v !== 'string') continue;
    const local = localDate(v, timeZone);
    if (local !== v) (copy ??= { ...r })[field] = local;
  }
  if (!copy) return record;
  zoneCopies.set(copy, record as object);
  return copy as T;
}

/** Each copy inZone made, and the record as sent it stands for (markOf in api/unusual looks through). */
const zoneCopies = new WeakMap<object, object>();

/** The record as the service sent it, for a copy inZone made; the value itself otherwise. */
export function asSent<T>(value: T): T {
  return (
    value !== null && typeof value === 'object' ? (zoneCopies.get(value) ?? value) : value
  ) as T;
}

/** The local day (`YYYY-MM-DD`) of a service date in the service's zone; other text's first ten characters. */
export function localDay(text: string, timeZone: string): string {
  return localDate(String(text), timeZone).slice(0, 10);
}
