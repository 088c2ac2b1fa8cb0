// Limits and rules that the CLI checks before sending and the sandbox checks on
// receipt, written once so the two cannot disagree about what is refused. Import-free
// (help, completions and the sandbox's start-up load it without loading anything else).

/**
 * Characters no text field may hold: C0 controls, DEL, C1 controls, and the bidi
 * embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069). Each can drive
 * a terminal or make a text read differently from what it holds.
 */
export const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/**
 * A referencia as svc compares it: Unicode NFC, invisible characters (format
 * characters such as U+200B, U+FEFF, U+00AD, bidi marks) removed, surrounding blanks
 * trimmed. Case stays significant, as the service's own matching is. Two referencias
 * with one key are the same referencia; what is sent stays as written.
 */
export function referenciaKey(text: string): string {
  return text
    .normalize('NFC')
    .replace(/\p{Cf}/gu, '')
    .trim();
}

/** Longest `concepto`, in characters (code points). */
export const MAX_CONCEPTO = 200;
/** Longest `referencia`, in characters (code points). */
export const MAX_REFERENCIA = 100;
/** Longest URL (`success_url`, `error_url`, the notification URL), once percent-encoded. */
export const MAX_URL = 2048;
/** Furthest `vencimiento`, in days from now. */
/** The days --desde and --hasta read, as help and errors list them. */
export const DAY_WORDS =
  'hoy, ayer, mañana, 7d, -7d, +7d, esta-semana, semana-pasada, este-mes, mes-pasado, 2026-11-01, 01/11/2026 o 01/11';

export const MAX_VENCIMIENTO_DAYS = 365;

/**
 * The syntax of an amount: a decimal string with no sign, exponent, comma or blank,
 * at most two decimals and twelve whole digits. money.ts parses with it; the schemas
 * check replies with it.
 */
export const AMOUNT_RE = /^(0|[1-9][0-9]{0,11})(?:\.([0-9]{1,2}))?$/;
/** Smallest amount a request may carry, in cents (zero is refused). */
export const MIN_CENTS = 1n;
/** Largest amount svc accepts anywhere: 999,999,999.99 (the sandbox documents the same bound). */
export const MAX_CENTS = 99_999_999_999n;

/** States of a payment request that admit a refund. */
export const REFUNDABLE = ['PAGADA', 'PAGADA_PARCIALMENTE', 'DEVUELTA_PARCIALMENTE'] as const;

/** States of a payment request in which the payer can still pay (its link is one to share). */
export const PAYABLE = ['PENDIENTE', 'EN_PROCESO', 'PAGADA_PARCIALMENTE'] as const;

/**
 * Loopback, as a bare host (`::1`, from --host) or a URL's hostname (`[::1]`, from
 * `new URL(…).hostname`): the only hosts plain http may reach (the key or a
 * notification stays on this machine), and where a server binds "this machine only".
 */
export function isLoopbackHost(host: string): boolean {
  return /^(localhost|127(?:\.\d{1,3}){3}|::1)$/i.test(host.replace(/^\[(.*)\]$/, '$1'));
}

/**
 * The key rule svc judges locally: the prefix of a test or live key and a non-empty
 * body. Everything else about the body is the service's to judge (it answers 401).
 * The body is visible ASCII only because the key travels in an Authorization
 * header, where a blank or a control character cannot be sent as typed.
 */
export const KEY_RE = /^svc_(test|live)_[\x21-\x7e]+$/;

/** The mode of a key by its prefix, or undefined when it is not a key. */
export function keyMode(key: string): 'test' | 'live' | undefined {
  const m = KEY_RE.exec(key);
  return m ? (m[1] as 'test' | 'live') : undefined;
}

/** The name a svc sandbox gives in GET /v1/salud: how svc knows a sandbox is what refused a key. */
export const SANDBOX_SERVICE_NAME = 'svc-sandbox';

/** The stricter format of the keys the sandbox issues (anything else it answers 401). */
export const SANDBOX_KEY_RE = /^svc_test_[A-Za-z0-9]{1,200}$/;
/** The one live key a sandbox accepts: its rehearsal merchant's (every other live key is 401). */
export const SANDBOX_LIVE_KEY_RE = /^svc_live_[A-Za-z0-9]{1,200}$/;
