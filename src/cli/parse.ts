// Checks of argument and option values, one per kind of value, shared by every
// command that takes it (ids, amounts, URLs, host and port, seconds, headers): each
// failure is a UsageError (exit 2) raised before any request is made.
import { UsageError } from '../errors.js';
import { AmountError, formatCents, parsePositiveAmount, type Cents } from '../domain/money.js';
import { MAX_URL, isLoopbackHost } from '../domain/rules.js';
import { printable } from '../text.js';

export { printable };

/** A positive integer id, as the service uses. */
/**
 * The one id limit of svc, for every command: a positive integer up to 2^53 − 1, what
 * a reply's id may be (a JSON number read exactly).
 */
export function isIdText(s: string): boolean {
  return /^[1-9][0-9]{0,15}$/.test(s) && Number.isSafeInteger(Number(s));
}

export function parseId(text: unknown, what = 'id'): number {
  const s = typeof text === 'string' ? text.trim() : '';
  if (!isIdText(s)) {
    throw new UsageError(
      `${what} inválido: "${printable(String(text ?? ''))}" (se espera un entero positivo de hasta ${Number.MAX_SAFE_INTEGER}, ej. 42)`,
    );
  }
  return Number(s);
}

export function parseChoice<T extends string>(
  value: unknown,
  allowed: readonly T[],
  flag: string,
): T | undefined {
  if (value === undefined) return undefined;
  const text = typeof value === 'string' ? value.trim() : '';
  // Any case: `--estado pendiente` is PENDIENTE, `--medio QR` is qr.
  const exact = allowed.find((a) => a.toLowerCase() === text.toLowerCase());
  if (exact !== undefined && text !== '') return exact;
  const near = nearest(text, allowed);
  const hint = near ? ` (¿quisiste decir ${near}?)` : '';
  // "la acción", "el --estado": the adjective agrees with what was typed.
  throw new UsageError(
    `${flag} "${printable(String(value))}" no es ${flag === 'acción' ? 'válida' : 'válido'}${hint}; valores posibles: ${allowed.join(', ')}`,
  );
}

/**
 * A filter on a field svc reads openly (--estado, --medio: a service may add values,
 * api/enums.ts OPEN_FIELDS): a known value in any case is that value; a near miss of
 * one is refused with the suggestion, as a typo; any other printable text is taken as
 * typed, for the service to filter by, and `warn` says svc does not know it.
 */
export function parseOpenChoice<T extends string>(
  value: unknown,
  known: readonly T[],
  flag: string,
  warn: (line: string) => void,
): T | (string & {}) | undefined {
  if (value === undefined) return undefined;
  const text = typeof value === 'string' ? value.trim() : '';
  const exact = known.find((a) => a.toLowerCase() === text.toLowerCase());
  if (exact !== undefined && text !== '') return exact;
  if (
    text === '' ||
    text.length > 100 ||
    nearest(text, known) !== undefined ||
    printable(text, 100) !== text
  )
    return parseChoice(value, known, flag);
  warn(
    `aviso: ${flag} ${text} no es un valor que svc conozca (${known.join(', ')}); se filtra tal cual`,
  );
  return text;
}

/** The allowed value a typo most likely meant: at most 2 edits away (a third of its length for short ones), else undefined. */
function nearest<T extends string>(typed: string, allowed: readonly T[]): T | undefined {
  const t = typed.toLowerCase();
  if (t === '') return undefined;
  // The start of one value only (PAGADA_PARCIAL): what was meant, however many letters are missing.
  const starting = t.length >= 4 ? allowed.filter((a) => a.toLowerCase().startsWith(t)) : [];
  if (starting.length === 1) return starting[0];
  let best: T | undefined;
  let bestDistance = Infinity;
  for (const a of allowed) {
    const d = editDistance(t, a.toLowerCase());
    if (d < bestDistance) {
      best = a;
      bestDistance = d;
    }
  }
  return best !== undefined && bestDistance <= Math.min(2, Math.max(1, Math.floor(best.length / 3)))
    ? best
    : undefined;
}

/** Levenshtein distance with transpositions counted as one edit (Damerau, optimal string alignment). */
function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 3) return Infinity;
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [
    i,
    ...new Array<number>(b.length).fill(0),
  ]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

export function parsePositiveInt(text: unknown, flag: string, max = 1_000_000): number {
  const s = typeof text === 'string' ? text.trim() : '';
  if (!/^[0-9]{1,9}$/.test(s) || Number(s) < 1 || Number(s) > max) {
    throw new UsageError(
      `${flag} "${printable(String(text ?? ''))}" no es válido (entero entre 1 y ${max})`,
    );
  }
  return Number(s);
}

/** `--limit n` of a list or a tail: undefined when not given. */
export function parseLimit(value: string | undefined, max?: number): number | undefined {
  return value === undefined ? undefined : parsePositiveInt(value, '--limit', max);
}

/** A whole number from `min` to `max` (milliseconds, counts). */
export function parseInteger(value: unknown, flag: string, min: number, max: number): number {
  const s = String(value).trim();
  if (!/^[0-9]{1,9}$/.test(s) || Number(s) < min || Number(s) > max) {
    throw new UsageError(`${flag} "${printable(s)}" no es válido (entero entre ${min} y ${max})`);
  }
  return Number(s);
}

/**
 * An amount given on the command line (--monto of crear, devolver, sandbox pagar,
 * webhook trigger), in cents: the syntax and bounds of money.ts. `example` adds the
 * `→` line for the commands whose amount a person types most.
 */
export function parseMonto(value: unknown, flag = '--monto', example?: string): Cents {
  try {
    return parsePositiveAmount(typeof value === 'string' ? value : '');
  } catch (err) {
    if (err instanceof AmountError) {
      // The hint is about how to write an amount: not for one that is well written but zero, negative or too large.
      const written =
        err.problem === 'comma' || err.problem === 'decimals' || err.problem === 'syntax';
      throw new UsageError(
        `${flag}: ${err.message}`,
        example && written ? `usá punto decimal y hasta dos decimales, ej. ${example}` : undefined,
      );
    }
    throw err;
  }
}

/**
 * An amount flag as the service takes it, two decimals ("1500" -> "1500.00"), checked
 * as parseMonto checks it. Here and not in money.ts: its errors name the flag.
 */
export function montoText(value: unknown, flag = '--monto', example?: string): string {
  return formatCents(parseMonto(value, flag, example));
}

export { isLoopbackHost };

/**
 * What a URL flag accepts: `https`, any URL svc sends to the service; `http`, where
 * the developer's app listens (plain http is usual locally); `notify`, where the
 * sandbox sends notifications (https, or http on this machine).
 */
export type UrlKind = 'https' | 'http' | 'notify';

/** The one URL check of the CLI; returns the URL as given (trimmed), or normalised for `http`. */
export function parseUrl(value: unknown, flag: string, kind: UrlKind): string {
  let s = typeof value === 'string' ? value.trim() : '';
  // An app on this machine, as the Stripe CLI takes it: `localhost:3000/webhooks` is http://localhost:3000/webhooks.
  const local = /^(\[::1\]|[^\s/:[\]]+)(:\d{1,5})?(\/\S*)?$/.exec(s);
  if (kind === 'http' && local && isLoopbackHost(local[1]!)) s = `http://${s}`;
  let url: URL | undefined;
  try {
    url = new URL(s);
  } catch {
    url = undefined;
  }
  const ok =
    url !== undefined &&
    url.hostname !== '' &&
    (kind === 'https'
      ? url.protocol === 'https:'
      : kind === 'http'
        ? url.protocol === 'http:' || url.protocol === 'https:'
        : url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname)));
  if (!ok) {
    const why =
      kind === 'https'
        ? 'no es una URL https (el servicio solo acepta https://…)'
        : kind === 'http'
          ? 'no es una URL http(s) (ej. http://localhost:3000/webhooks)'
          : 'no sirve: tiene que ser https, o http hacia 127.0.0.1/localhost';
    throw new UsageError(`${flag} "${printable(s)}" ${why}`);
  }
  if (kind === 'https' && s.length > MAX_URL)
    throw new UsageError(`${flag} es demasiado larga (máximo ${MAX_URL} caracteres)`);
  return kind === 'http' ? url!.href : s;
}

/** --host of the servers (sandbox, listen): a name or an address, no scheme or port. */
export function parseHost(value: unknown, flag = '--host'): string {
  const host = String(value).trim();
  if (!/^[A-Za-z0-9.:-]{1,253}$/.test(host))
    throw new UsageError(`${flag} "${printable(host)}" no es una dirección válida (ej. 127.0.0.1)`);
  return host;
}

/** --port of the servers: 0 to 65535, 0 picks a free one. */
export function parsePort(value: unknown, flag = '--port'): number {
  const s = String(value).trim();
  if (!/^[0-9]{1,5}$/.test(s) || Number(s) > 65535)
    throw new UsageError(`${flag} "${printable(s)}" no es válido (0 a 65535; 0 elige uno libre)`);
  return Number(s);
}

/** --tolerance: whole seconds, 0 turns the check off. */
export function parseTolerance(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const s = String(value).trim();
  if (!/^[0-9]{1,9}$/.test(s))
    throw new UsageError(
      `--tolerance "${printable(s)}" no es válido (segundos, entero ≥ 0; 0 la desactiva)`,
    );
  return Number(s);
}

/** --forward-timeout: seconds (decimals allowed), returned in milliseconds. */
export function parseTimeoutSeconds(
  value: unknown,
  flag = '--forward-timeout',
): number | undefined {
  if (value === undefined) return undefined;
  const s = String(value).trim();
  if (!/^[0-9]{1,4}(\.[0-9]{1,3})?$/.test(s) || Number(s) <= 0 || Number(s) > 3600) {
    throw new UsageError(
      `${flag} "${printable(s)}" no es válido (segundos, mayor que 0 y hasta 3600, ej. 10 o 2.5)`,
    );
  }
  return Math.round(Number(s) * 1000);
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
/** Headers the transport sets itself: overriding them would corrupt the forward. */
const RESERVED = new Set([
  'content-length',
  'transfer-encoding',
  'host',
  'connection',
  'keep-alive',
  'upgrade',
  'expect',
  'te',
  'trailer',
]);

/** -H "Name: value" (repeatable). */
export function parseHeaders(value: readonly string[] | undefined): [string, string][] {
  return (value ?? []).map((raw) => {
    const text = String(raw);
    const colon = text.indexOf(':');
    const name = colon > 0 ? text.slice(0, colon).trim() : '';
    const val = colon > 0 ? text.slice(colon + 1).trim() : '';
    if (!HEADER_NAME.test(name))
      throw new UsageError(`-H "${printable(text)}" no es un header "Nombre: valor"`);
    if (/[\r\n\0]/.test(val))
      throw new UsageError(`-H ${name}: el valor no puede tener saltos de línea`);
    if (RESERVED.has(name.toLowerCase()))
      throw new UsageError(`-H ${name}: ese header lo pone el transporte, no se puede cambiar`);
    return [name, val];
  });
}

/** A path flag that must name a file (--data, --journal). */
export function parseFilePath(value: unknown, flag: string): string {
  const file = String(value);
  if (file.trim() === '') throw new UsageError(`${flag} necesita la ruta de un archivo`);
  return file;
}
