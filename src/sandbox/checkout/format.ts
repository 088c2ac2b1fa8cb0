// What the payer reads: amounts and dates in es-AR notation, escaping of every
// interpolated value, and the amount a payer types (1500,50 or 1500.50).
//
// One notation per surface (docs/sandbox.md): the payer's pages write every amount as
// a person in Argentina reads a price ($ 185.000,50), refusals too; the dashboard, like
// the terminal and the API, writes 185000.50.
import {
  AmountError,
  formatCents,
  MAX_CENTS,
  parseAmount,
  parseTypedAmount,
  twoReadings,
  type Cents,
} from '../../domain/money.js';
import { printable } from '../../text.js';

/** Escapes text for HTML content and double- or single-quoted attributes. */
export function esc(value: string | number | bigint): string {
  return String(value).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * "$ 1.234.567,89": thousands with dots, decimals with a comma (string work only). The
 * blank after "$" does not break (U+00A0, as es-AR's Intl writes it): on a phone
 * "$ 500,00 de $ 2.000,00" must not end a line at a lone "$".
 */
export function pesos(cents: Cents): string {
  const [whole, frac] = formatCents(cents).split('.') as [string, string];
  const negative = whole.startsWith('-');
  const digits = negative ? whole.slice(1) : whole;
  const grouped = digits.replace(/\B(?=(\d{3})+(?!\d))/g, '.');
  return `${negative ? '-' : ''}$\u00a0${grouped},${frac}`;
}

/** "185.000,50": pesos() without its "$", as the payer would type the amount. */
const typedForm = (cents: Cents) => pesos(cents).replace(/^\$\u00a0/, '');

/**
 * Why a typed amount was refused, in the payer's notation: money.ts's words name the
 * readings and the maximum as the API writes them (4800.00), which the payer's page
 * never shows. `"4.800" puede ser $ 4.800,00 o $ 4,80: escribí 4.800,00 o 4,80`.
 */
export function typedRefusal(typed: string, err: AmountError): string {
  const t = typed.trim();
  const two = twoReadings(t);
  if (two) {
    const [a, b] = two.map(parseAmount) as [Cents, Cents];
    return `"${printable(t, 24)}" puede ser ${pesos(a)} o ${pesos(b)}: escribí ${typedForm(a)} o ${typedForm(b)}`;
  }
  if (err.problem === 'too_large')
    return `"${printable(t, 24)}" supera el máximo de ${pesos(MAX_CENTS)}`;
  return err.message;
}

/** "2026-12-24 18:00:00" -> "24/12/2026 18:00". Anything else is returned as is. */
export function fecha(local: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2})/.exec(local);
  return m ? `${m[3]}/${m[2]}/${m[1]} ${m[4]}:${m[5]}` : local;
}

/** The amount typed in the form, read as svc's prompts and the dashboard read it (money.ts). */
export { parseTypedAmount as parseTyped };
