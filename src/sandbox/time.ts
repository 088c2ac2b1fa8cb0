// Dates of the sandbox: one clock for everything time does (expiry, cvu/qr readiness,
// notification retries, every date it writes), which starts at the real time and can
// be moved on (`svc sandbox reloj avanzar`) or set back to the real time (`reiniciar`),
// never to anything else; a notification's signature is stamped by the wall clock
// instead (replay protection is about when it was sent); local `YYYY-MM-DD HH:MM:SS`
// in the configured zone (Intl, no library); the strict ISO 8601 parse of `vencimiento`;
// and the durations the clock is moved by.
import { SandboxStartError } from './sandbox-error.js';
import { WALL_CLOCK } from '../domain/dates.js';
import { DEFAULTS } from '../defaults.js';

export const DEFAULT_TZ: string = DEFAULTS.timeZone;

export interface Clock {
  /** Milliseconds since the epoch, on the sandbox's clock (real time plus what it was moved on). */
  now(): number;
  /** How far the clock was moved on from real time, ms. */
  offset(): number;
  /** Moves the clock on (never back). */
  advance(ms: number): void;
  /** Back to the real time (offset 0); nothing already written changes. */
  reset(): void;
  /**
   * Sets how far the clock is from the real time, back too. Only while a scenario is
   * applied, before anything else runs (`svc sandbox --escenario` with `hace`), which
   * sets it back where it was when done.
   */
  setOffset(ms: number): void;
  /**
   * Milliseconds since the epoch by the wall clock, whatever the sandbox's clock says:
   * the moment a signature's X-Svc-Timestamp states, as a real service with a test clock
   * signs, so a receiver's replay window holds after `reloj avanzar`.
   */
  wall(): number;
  /** Local date-time of an instant in the sandbox's zone. */
  local(ms: number): string;
  readonly tz: string;
}

/** Throws SandboxStartError for a zone Intl does not know. */
export function createClock(tz: string = DEFAULT_TZ, real: () => number = Date.now): Clock {
  let offset = 0;
  const now = () => real() + offset;
  const advance = (ms: number) => {
    if (!Number.isSafeInteger(ms) || ms < 0)
      throw new RangeError(`the sandbox's clock only moves forward (${ms} ms)`);
    offset += ms;
  };
  let fmt: Intl.DateTimeFormat;
  try {
    fmt = new Intl.DateTimeFormat('en-US', { timeZone: tz, ...WALL_CLOCK });
  } catch {
    throw new SandboxStartError(
      `zona horaria desconocida: "${tz}" (ej. America/Argentina/Buenos_Aires, UTC)`,
    );
  }
  // Formatting is the costly part of a read; most calls ask for the same second.
  let cachedSecond = Number.NaN;
  let cachedText = '';
  const formatted = (second: number): string => {
    const p: Record<string, string> = {};
    for (const part of fmt.formatToParts(second * 1000)) p[part.type] = part.value;
    return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
  };
  // A zone changes its offset only on a quarter hour of UTC: within one, the local time
  // is the UTC time moved by the same offset, read without Intl (a year of history
  // writes millions of dates, each a different second).
  let cachedBlock = Number.NaN;
  let blockOffset = 0;
  const offsets = new Map<number, number>();
  const offsetAt = (second: number): number | undefined => {
    const wall = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(formatted(second));
    if (!wall) return undefined;
    const [y, mo, d, h, mi, s] = wall.slice(1).map(Number) as number[];
    return Date.UTC(y!, mo! - 1, d!, h!, mi!, s!) - second * 1000;
  };
  const local = (ms: number): string => {
    const second = Math.floor(ms / 1000);
    if (second === cachedSecond) return cachedText;
    const block = Math.floor(second / 900);
    if (block !== cachedBlock) {
      cachedBlock = block;
      let known = offsets.get(block);
      if (known === undefined) {
        // The offset at both ends of the quarter: one that changes within it (a zone's
        // history before standard time) is formatted second by second.
        const first = offsetAt(block * 900);
        known = first !== undefined && first === offsetAt(block * 900 + 899) ? first : NaN;
        // A year is 35,040 quarters: dates that jump back and forth (a year of history
        // made request by request) find theirs again.
        if (offsets.size >= 200_000) offsets.clear();
        offsets.set(block, known);
      }
      blockOffset = known;
    }
    const at = new Date(second * 1000 + blockOffset);
    const year = at.getUTCFullYear();
    const two = (n: number) => (n < 10 ? `0${n}` : String(n));
    const text =
      !Number.isNaN(blockOffset) && year >= 1000 && year <= 9999
        ? `${year}-${two(at.getUTCMonth() + 1)}-${two(at.getUTCDate())} ${two(at.getUTCHours())}:${two(at.getUTCMinutes())}:${two(at.getUTCSeconds())}`
        : formatted(second);
    cachedSecond = second;
    cachedText = text;
    return text;
  };
  const reset = () => {
    offset = 0;
  };
  const setOffset = (ms: number) => {
    if (!Number.isSafeInteger(ms)) throw new RangeError(`not an offset (${ms} ms)`);
    offset = ms;
  };
  return { now, offset: () => offset, advance, reset, setOffset, wall: real, local, tz };
}

const ISO_WITH_OFFSET =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

/** Milliseconds of an ISO 8601 date-time that carries an offset, or undefined. */
export function parseIsoWithOffset(text: string): number | undefined {
  const m = ISO_WITH_OFFSET.exec(text);
  if (!m) return undefined;
  const [, , mo, d, h, mi, s] = m;
  if (Number(mo) < 1 || Number(mo) > 12 || Number(d) < 1 || Number(d) > 31) return undefined;
  if (Number(h) > 23 || Number(mi) > 59 || Number(s ?? '0') > 59) return undefined;
  const offset = m[7]!.length === 5 ? `${m[7]!.slice(0, 3)}:${m[7]!.slice(3)}` : m[7]!;
  const ms = Date.parse(text.slice(0, text.length - m[7]!.length) + offset);
  if (Number.isNaN(ms)) return undefined;
  // Date.parse rolls 2025-02-31 over to March; refuse days a month does not have.
  const day = new Date(Date.UTC(Number(m[1]), Number(mo) - 1, Number(d)));
  if (day.getUTCDate() !== Number(d)) return undefined;
  return ms;
}

const DURATION = /^(?:(\d{1,5})d)?(?:(\d{1,6})h)?(?:(\d{1,7})m)?(?:(\d{1,9})s)?$/;
/** The longest move at once: ten years. */
export const MAX_ADVANCE_MS = 3650 * 24 * 3600 * 1000;

/** Milliseconds of a duration such as 30m, 12h, 8d or 1d12h; undefined when it is not one (or is 0, or over ten years). */
export function parseDuration(text: string): number | undefined {
  const m = DURATION.exec(text.trim().toLowerCase());
  if (!m || !(m[1] || m[2] || m[3] || m[4])) return undefined;
  const ms =
    ((Number(m[1] ?? 0) * 24 + Number(m[2] ?? 0)) * 60 + Number(m[3] ?? 0)) * 60_000 +
    Number(m[4] ?? 0) * 1000;
  return ms > 0 && ms <= MAX_ADVANCE_MS ? ms : undefined;
}
