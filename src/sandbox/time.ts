// Dates of the sandbox: local `YYYY-MM-DD HH:MM:SS` in the configured zone (Intl,
// no library), and the strict ISO 8601 parse of `vencimiento`.
import { SandboxStartError } from './errors.js';
import { WALL_CLOCK } from '../dates.js';
import { DEFAULTS } from '../defaults.js';

export const DEFAULT_TZ: string = DEFAULTS.timeZone;

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Local date-time of an instant in the sandbox's zone. */
  local(ms: number): string;
  readonly tz: string;
}

/** Throws SandboxStartError for a zone Intl does not know. */
export function createClock(tz: string = DEFAULT_TZ, now: () => number = Date.now): Clock {
  let fmt: Intl.DateTimeFormat;
  try {
    fmt = new Intl.DateTimeFormat('en-US', { timeZone: tz, ...WALL_CLOCK });
  } catch {
    throw new SandboxStartError(`zona horaria desconocida: "${tz}" (ej. America/Argentina/Buenos_Aires, UTC)`);
  }
  // Formatting is the costly part of a read; most calls ask for the same second.
  let cachedSecond = Number.NaN;
  let cachedText = '';
  const local = (ms: number): string => {
    const second = Math.floor(ms / 1000);
    if (second === cachedSecond) return cachedText;
    const p: Record<string, string> = {};
    for (const part of fmt.formatToParts(second * 1000)) p[part.type] = part.value;
    const text = `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
    cachedSecond = second;
    cachedText = text;
    return text;
  };
  return { now, local, tz };
}

const ISO_WITH_OFFSET = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

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
