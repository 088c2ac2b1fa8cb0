// Amounts: decimal strings on the wire, integer cents (BigInt) in memory.
// The only module of svc that does arithmetic on amounts; nothing here ever
// turns an amount into a JavaScript number.

import { EXIT, SvcError } from '../errors.js';
import { AMOUNT_RE, MAX_CENTS, MIN_CENTS } from './rules.js';
import { printable } from '../text.js';

export type Cents = bigint;

export { MAX_CENTS };
const PERCENT_RE = /^(0|[1-9][0-9]{0,2})(?:\.([0-9]{1,4}))?$/;

export class AmountError extends SvcError {
  override name = 'AmountError';
  readonly exitCode = EXIT.usage;
  readonly code = 'usage';
  constructor(
    message: string,
    /** What is wrong with the amount, when it is an amount that was refused. */
    readonly problem?: AmountProblem,
  ) {
    super(message);
  }
}

/** An amount as typed, safe to echo. */
const shown = (text: string) => printable(text, 24);

/** Why a value is not an amount (or not a positive one within bounds): each caller words it in its own language. */
export type AmountProblem =
  | 'number'
  | 'not_string'
  | 'empty'
  | 'comma'
  | 'negative'
  | 'decimals'
  | 'too_large'
  | 'syntax'
  | 'zero';

/**
 * The one amount check of svc (the CLI's flags, the sandbox's bodies, the replies'
 * schemas): cents, or the first problem found. Refuses JSON numbers, signs,
 * exponents, commas, spaces, more than two decimals and empty text; with
 * `positive`, also zero and anything above MAX_CENTS.
 */
export function checkAmount(
  value: unknown,
  positive = false,
): { cents: Cents } | { problem: AmountProblem } {
  if (typeof value !== 'string')
    return { problem: typeof value === 'number' ? 'number' : 'not_string' };
  if (value.trim() === '') return { problem: 'empty' };
  if (value.includes(',')) return { problem: 'comma' };
  if (/^-/.test(value.trim())) return { problem: 'negative' };
  const m = AMOUNT_RE.exec(value);
  if (!m) {
    if (/^[0-9]+\.[0-9]{3,}$/.test(value)) return { problem: 'decimals' };
    if (/^[0-9]{13,}(\.[0-9]*)?$/.test(value)) return { problem: 'too_large' };
    return { problem: 'syntax' };
  }
  const cents = BigInt(m[1]!) * 100n + BigInt((m[2] ?? '').padEnd(2, '0'));
  if (positive && cents < MIN_CENTS) return { problem: 'zero' };
  if (positive && cents > MAX_CENTS) return { problem: 'too_large' };
  return { cents };
}

function amountError(text: string, problem: AmountProblem): AmountError {
  switch (problem) {
    case 'number':
    case 'not_string':
      return new AmountError(
        'el monto debe ser un texto decimal como "1500.00", no un número JSON',
        problem,
      );
    case 'empty':
      return new AmountError('el monto está vacío', problem);
    case 'comma':
      return new AmountError(
        `"${shown(text)}" usa coma: el separador decimal es el punto (ej. 1500.50)`,
        problem,
      );
    case 'negative':
      return new AmountError(`"${shown(text)}" es negativo: el monto debe ser positivo`, problem);
    case 'decimals':
      return new AmountError(`"${shown(text)}" tiene más de dos decimales`, problem);
    case 'too_large':
      return new AmountError(
        `"${shown(text)}" supera el máximo de ${formatCents(MAX_CENTS)}`,
        problem,
      );
    case 'zero':
      return new AmountError(`"${shown(text)}" es cero: el monto debe ser mayor que 0`, problem);
    case 'syntax':
      return new AmountError(
        `"${shown(text)}" no es un monto decimal válido (ej. 1500 o 1500.50)`,
        problem,
      );
  }
}

/**
 * Parses a decimal string such as "1500", "1500.5" or "1500.50" into cents.
 * Refuses signs, exponents, commas, spaces, more than two decimals and empty text,
 * each with a reason a person can act on.
 */
export function parseAmount(text: string): Cents {
  const r = checkAmount(text);
  if ('problem' in r) throw amountError(text, r.problem);
  return r.cents;
}

/** Like parseAmount, and also refuses zero and anything above MAX_CENTS. */
export function parsePositiveAmount(text: string): Cents {
  const r = checkAmount(text, true);
  if ('problem' in r) throw amountError(text, r.problem);
  return r.cents;
}

/** The example every field or prompt for a typed amount gives (parseTypedAmount reads both). */
export const TYPED_AMOUNT_HINT = 'ej. 1500,50 o 1500.50';

/**
 * An amount a person types (svc's prompts, the checkout, the dashboard), in cents:
 * the API's notation (1500.50) or the Spanish one (1500,50 · 1.500,50 · 1.500.000).
 * One dot or comma before exactly three digits (1.500, 1,500) reads two ways and is
 * refused naming both. Flags and bodies keep the API's notation only (parseAmount).
 */
export function parseTypedAmount(text: string): Cents {
  const t = text.trim().replace(/^\$\s*/, '');
  const two = twoReadings(t);
  if (two) {
    throw new AmountError(
      `"${shown(t)}" puede ser ${two[0]} o ${two[1]}: escribí uno de los dos así`,
      'syntax',
    );
  }
  if (t.includes(',')) {
    if (!/^[0-9]{1,3}(\.[0-9]{3})*,[0-9]{1,2}$|^[0-9]+,[0-9]{1,2}$/.test(t)) {
      throw new AmountError(
        `"${shown(t)}" no es un monto (ej. 1500,50 · 1.500,50 · 1500.50)`,
        'syntax',
      );
    }
    return parsePositiveAmount(t.replace(/\./g, '').replace(',', '.'));
  }
  // Dots for thousands only (1.500.000): two or more groups of three cannot be decimals.
  if (/^[0-9]{1,3}(\.[0-9]{3}){2,}$/.test(t)) return parsePositiveAmount(t.replace(/\./g, ''));
  return parsePositiveAmount(t);
}

/**
 * The two amounts a typed text with one dot or comma before exactly three digits may
 * be (1.500: 1500.00 or 1.500), thousands first; undefined for any other text.
 */
export function twoReadings(text: string): [thousands: string, decimal: string] | undefined {
  const two = /^([1-9][0-9]{0,2})[.,]([0-9]{3})$/.exec(text.trim().replace(/^\$\s*/, ''));
  if (!two) return undefined;
  const [, whole, part] = two as unknown as [string, string, string];
  return [`${whole}${part}.00`, `${whole}.${part.endsWith('0') ? part.slice(0, 2) : part}`];
}

/** True when text is a well-formed amount (zero allowed). */
export function isAmount(text: unknown): text is string {
  return typeof text === 'string' && AMOUNT_RE.test(text);
}

/** Formats cents as the service does: always two decimals, "-" for negatives. */
export function formatCents(cents: Cents): string {
  const negative = cents < 0n;
  const abs = negative ? -cents : cents;
  const whole = abs / 100n;
  const frac = (abs % 100n).toString().padStart(2, '0');
  return `${negative ? '-' : ''}${whole}.${frac}`;
}

/** Normalises a valid amount string to two decimals: "1500" -> "1500.00". */
export function normalizeAmount(text: string): string {
  return formatCents(parseAmount(text));
}

/** Exact sum of amount strings. */
export function sumAmounts(amounts: Iterable<string>): Cents {
  let total = 0n;
  for (const a of amounts) total += parseAmount(a);
  return total;
}

/** Parses a percentage string with up to four decimals ("3.2500") into ten-thousandths of a percent. */
export function parsePercent(text: string): bigint {
  const m = PERCENT_RE.exec(text);
  if (!m) throw new AmountError(`"${shown(text)}" no es un porcentaje válido`);
  return BigInt(m[1]!) * 10_000n + BigInt((m[2] ?? '').padEnd(4, '0'));
}

/** Formats ten-thousandths of a percent with four decimals: 32500n -> "3.2500". */
export function formatPercent(tenThousandths: bigint): string {
  return `${tenThousandths / 10_000n}.${(tenThousandths % 10_000n).toString().padStart(4, '0')}`;
}

/**
 * cents × percentage / 100, rounded half-up to the cent.
 * percentage is a string with up to four decimals, e.g. "3.2500".
 */
export function percentOf(cents: Cents, percentage: string): Cents {
  if (cents < 0n) throw new AmountError('percentOf needs a non-negative amount');
  const p = parsePercent(percentage); // percent × 10^4
  const numerator = cents * p; // cents × percent × 10^4
  const denominator = 100n * 10_000n;
  return (numerator * 2n + denominator) / (denominator * 2n);
}

export function minCents(a: Cents, b: Cents): Cents {
  return a < b ? a : b;
}
