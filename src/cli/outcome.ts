// What svc says when a request that changes something (a POST) was sent and no
// usable answer came back, or when anything unexpected happens: one line, never a
// stack trace, and exit 6 ("may or may not have been done") once a POST was sent,
// since exit 1 means "the service refused" and a script would repeat a refund.
// Kept free of heavy imports: the process's last-resort handlers load it.
import { redactAddresses } from '../api/address.js';
import { EXIT } from '../errors.js';

export { redactAddresses };

/** A write as the client records it (api/client.ts WriteRecord). */
export interface SentWrite {
  method: string;
  path: string;
  sent: boolean;
}

/** The global flags a check command carries, so it looks where the write went. */
export interface CarriedFlags {
  profile?: string | undefined;
  live?: boolean | undefined;
  baseUrl?: string | undefined;
}

/** ` --profile P --live --base-url U` as they were used (nothing when none was), ready to paste. */
export function carried(flags: CarriedFlags = {}): string {
  return (
    (flags.profile !== undefined ? ` --profile ${shellWord(flags.profile)}` : '') +
    (flags.live ? ' --live' : '') +
    (flags.baseUrl !== undefined ? ` --base-url ${shellWord(flags.baseUrl)}` : '')
  );
}

/** Single-quoted for a POSIX shell when it needs it, so a suggested command can be pasted as is. */
export function shellWord(text: string): string {
  return /^[\w.,:@%+=/-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The command that shows whether a refund of payment request `id` was made. */
export function refundCheck(id: number | string, flags: CarriedFlags = {}): string {
  const more = carried(flags);
  return `svc devoluciones listar --cobro ${id}${more}  o  svc cobro ver ${id}${more}`;
}

/** A command that shows the effect of `method path`, to check before repeating it. */
export function checkCommandFor(path: string, flags: CarriedFlags = {}): string {
  const bare = path.split('?')[0] ?? path;
  const more = carried(flags);
  let m: RegExpExecArray | null;
  if ((m = /^\/v1\/cobros\/(\d+)\/devoluciones\/?$/.exec(bare))) return refundCheck(m[1]!, flags);
  if ((m = /^\/(?:v1|_sandbox)\/cobros\/(\d+)(?:\/[^/]*)?\/?$/.exec(bare)))
    return `svc cobro ver ${m[1]}${more}`;
  if (/^\/v1\/cobros\/?$/.test(bare)) return `svc cobro listar${more}`;
  return `svc api GET ${shellWord(bare)}${more}`;
}

export interface Unexpected {
  code: number;
  /** The error line, without the `error:` prefix. */
  line: string;
  /** The name a script reads with --json. */
  name: 'unexpected' | 'outcome_unknown';
  suggestion?: string;
}

/** Anything that is not one of svc's own errors: exit 1, or 6 once a write was sent. */
export function unexpected(
  err: unknown,
  writes: readonly SentWrite[] = [],
  flags: CarriedFlags = {},
): Unexpected {
  const raw = err instanceof Error ? err.message || err.name : String(err);
  // One line, nothing that drives a terminal (C0, C1, bidi controls shown as "?").
  const flat = raw
    .replace(/\s+/g, ' ')
    .replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, '?')
    .trim();
  const message = redactAddresses(flat) || 'sin detalle';
  const sent = writes.filter((w) => w.sent);
  if (sent.length === 0) {
    return {
      code: EXIT.refused,
      name: 'unexpected',
      line: `error inesperado: ${message} (corré con --debug para más detalle)`,
    };
  }
  const last = sent[sent.length - 1]!;
  const what = sent.map((w) => `${w.method} ${w.path}`).join(', ');
  return {
    code: EXIT.network,
    name: 'outcome_unknown',
    line: `error inesperado después de enviar ${what}: ${message}; puede haberse hecho o no: no lo repitas sin verificar`,
    suggestion: `para verificar: ${checkCommandFor(last.path, flags)}`,
  };
}

/**
 * Why a write's outcome is unknown, for the "puede haberse hecho o no (…)" line:
 * the client's own message, or what went wrong that nobody expected.
 */
export function unknownOutcomeReason(err: unknown): string {
  if (err instanceof Error && err.name === 'NetworkError') return err.message;
  return unexpected(err).line.replace(/ \(corré con --debug para más detalle\)$/, '');
}

/**
 * Whether a failure of a write call leaves its outcome unknown: everything but an
 * answer of the service (ApiError: it refused) and a request that surely never left
 * (NetworkError with sent false). Unexpected errors count as unknown: saying "check
 * first" when nothing was sent costs a look; saying "refused" after a refund was sent
 * could cost a second refund.
 */
export function outcomeUnknown(err: unknown): boolean {
  if (!(err instanceof Error)) return true;
  if (err.name === 'ApiError') return false;
  if (err.name === 'NetworkError') return (err as { sent?: boolean }).sent !== false;
  return true;
}
