// Checks of request bodies: a body is read field by field as the endpoint table
// declares it (api/contract.ts), each field by the reader of its kind, which applies
// the rule of rules.ts or money.ts. Each failure is a 400 with the endpoint's own code
// and a message that starts with the field it is about.
import type { Field, Fields, RequestBody } from '../../api/contract.js';
import { MAX_CENTS, checkAmount, formatCents, type Cents } from '../../domain/money.js';
import { SandboxError } from '../sandbox-error.js';
import { parseIsoWithOffset } from '../time.js';
import {
  CONTROL_CHARS,
  MAX_CONCEPTO,
  MAX_REFERENCIA,
  MAX_URL,
  MAX_VENCIMIENTO_DAYS,
  isLoopbackHost,
} from '../../domain/rules.js';
import { printable } from '../../text.js';

export { MAX_CONCEPTO, MAX_REFERENCIA, MAX_URL, MAX_VENCIMIENTO_DAYS };

export type Bad = (message: string) => SandboxError;
export const badWith =
  (code: string): Bad =>
  (message) =>
    new SandboxError(400, code, message);

const DAY = 86_400_000;

/** What the reader of each kind of field gives the handler. */
type Read<F extends Field> = F extends { kind: 'texto'; required: true }
  ? string
  : F extends { kind: 'texto' | 'https' }
    ? string | null
    : F extends { kind: 'monto' }
      ? Cents
      : F extends { kind: 'booleano' }
        ? boolean
        : number | null;
export type Body<F extends Fields> = { -readonly [K in keyof F]: Read<F[K]> };

/**
 * A request body as its endpoint declares it, read field by field in the table's order
 * (the first bad field is the one reported). `fecha` is a millisecond time (its rule
 * needs `now`). A body the endpoint may leave out reads as no fields when absent.
 */
export function readBody<F extends Fields>(
  request: RequestBody<F>,
  body: unknown,
  bad: Bad,
  now: number,
): Body<F> {
  if (body === undefined && request.optional) return {} as Body<F>;
  const b = object(body, bad);
  const out: Record<string, unknown> = {};
  for (const [name, f] of Object.entries(request.fields))
    out[name] = readField(f, b[name], name, bad, now);
  return out as Body<F>;
}

function readField(f: Field, value: unknown, name: string, bad: Bad, now: number): unknown {
  switch (f.kind) {
    case 'texto':
      return f.required ? text(value, name, f.max, bad, true) : text(value, name, f.max, bad);
    case 'monto':
      return amount(value, name, bad);
    case 'fecha':
      return dateTime(value, name, bad, now);
    case 'booleano':
      return bool(value, name, bad, f.default);
    case 'https':
      return httpsUrl(value, name, bad);
    case 'id':
      return optionalId(value, name, bad);
  }
}

/** An ISO 8601 date-time with offset, in the future and at most MAX_VENCIMIENTO_DAYS ahead; null when absent. */
export function dateTime(value: unknown, field: string, bad: Bad, now: number): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string')
    throw bad(
      `${field}: debe ser una fecha y hora ISO 8601 con zona, como "2030-01-31T23:59:00-03:00"`,
    );
  const ms = parseIsoWithOffset(value);
  if (ms === undefined)
    throw bad(
      `${field}: "${clip(value)}" no es una fecha y hora ISO 8601 con zona, como "2030-01-31T23:59:00-03:00"`,
    );
  if (ms <= now) throw bad(`${field}: "${clip(value)}" ya pasó`);
  if (ms > now + MAX_VENCIMIENTO_DAYS * DAY)
    throw bad(`${field}: como mucho ${MAX_VENCIMIENTO_DAYS} días adelante`);
  return ms;
}

/** The body must be a JSON object (already parsed by app.ts). */
export function object(body: unknown, bad: Bad): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw bad('body: debe ser un objeto JSON');
  return body as Record<string, unknown>;
}

/** A positive decimal string with at most two decimals, up to 999999999.99: money.ts decides, the message is the service's. */
export function amount(value: unknown, field: string, bad: Bad): Cents {
  const r = checkAmount(value, true);
  if ('cents' in r) return r.cents;
  const shown = typeof value === 'string' ? clip(value) : '';
  switch (r.problem) {
    case 'number':
      throw bad(`${field}: debe ser un texto decimal como "1500.00", no un número JSON`);
    case 'not_string':
      throw bad(`${field}: debe ser un texto decimal como "1500.00"`);
    case 'negative':
      throw bad(`${field}: debe ser positivo, llegó "${shown}"`);
    case 'decimals':
      throw bad(`${field}: como mucho dos decimales, llegó "${shown}"`);
    case 'too_large':
      throw bad(`${field}: como mucho ${formatCents(MAX_CENTS)}`);
    case 'zero':
      throw bad(`${field}: debe ser mayor que 0`);
    default:
      throw bad(`${field}: "${shown}" no es un monto decimal como "1500.00"`);
  }
}

export function text(value: unknown, field: string, max: number, bad: Bad, required: true): string;
export function text(
  value: unknown,
  field: string,
  max: number,
  bad: Bad,
  required?: false,
): string | null;
export function text(
  value: unknown,
  field: string,
  max: number,
  bad: Bad,
  required = false,
): string | null {
  if (value === undefined || value === null) {
    if (required) throw bad(`${field}: falta (es obligatorio)`);
    return null;
  }
  if (typeof value !== 'string') throw bad(`${field}: debe ser texto`);
  // A blank optional value is refused, not turned into null: the client sent
  // something and would otherwise read back a different value without a word.
  if (value.trim() === '')
    throw bad(
      required
        ? `${field}: no puede estar vacío`
        : `${field}: no puede estar en blanco; omitilo o mandá null`,
    );
  if ([...value].length > max)
    throw bad(`${field}: como mucho ${max} caracteres (llegaron ${[...value].length})`);
  if (CONTROL_CHARS.test(value))
    throw bad(
      `${field}: no puede tener caracteres de control (C0, C1 ni controles bidireccionales)`,
    );
  return value;
}

export function bool(value: unknown, field: string, bad: Bad, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw bad(`${field}: debe ser true o false`);
  return value;
}

/**
 * An https URL (success_url, error_url), normalised (`new URL(s).href`: non-ASCII
 * percent-encoded) so that what is stored, shown and sent in a Location header is
 * one value; null when absent. An empty string is not https, so it is refused.
 */
export function httpsUrl(value: unknown, field: string, bad: Bad): string | null {
  if (typeof value === 'string' && value.trim() === '')
    throw bad(`${field}: debe ser una URL https, llegó "${clip(value)}"`);
  const s = text(value, field, MAX_URL, bad);
  if (s === null) return null;
  let url: URL | undefined;
  try {
    url = new URL(s);
  } catch {
    url = undefined;
  }
  if (!url || url.protocol !== 'https:' || !url.hostname)
    throw bad(`${field}: debe ser una URL https, llegó "${clip(s)}"`);
  if (url.href.length > MAX_URL)
    throw bad(
      `${field}: como mucho ${MAX_URL} caracteres con el percent-encoding (llegaron ${url.href.length})`,
    );
  return url.href;
}

/** Notification URL: https, or http on loopback only (for a local receiver). */
export function webhookUrl(value: unknown, field: string, bad: Bad): string {
  if (typeof value !== 'string' || value === '')
    throw bad(`${field}: falta, una URL https (o http en 127.0.0.1/localhost)`);
  if (CONTROL_CHARS.test(value))
    throw bad(
      `${field}: no puede tener caracteres de control (C0, C1 ni controles bidireccionales)`,
    );
  if (value.length > MAX_URL) throw bad(`${field}: como mucho ${MAX_URL} caracteres`);
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || !url.hostname) throw bad(`${field}: "${clip(value)}" no es una URL`);
  if (url.protocol === 'https:') return value;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return value;
  throw bad(`${field}: debe ser https (http solo en 127.0.0.1/localhost), llegó "${clip(value)}"`);
}

/** A positive integer id in a body, or null/absent. */
export function optionalId(value: unknown, field: string, bad: Bad): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0)
    throw bad(`${field}: debe ser un entero positivo o null`);
  return value;
}

/** A value echoed in a message: controls (bidi ones too) shown as "?", and short. */
export function clip(s: string, max = 40): string {
  return printable(s.replace(/[\u202a-\u202e\u2066-\u2069]/g, '?'), max);
}
