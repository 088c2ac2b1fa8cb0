// What the payer reads: amounts and dates in es-AR notation, escaping of every
// interpolated value, and the amount a payer types (1500,50 or 1500.50).
import { formatCents, parseTypedAmount, type Cents } from '../../domain/money.js';

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

/** "2026-12-24 18:00:00" -> "24/12/2026 18:00". Anything else is returned as is. */
export function fecha(local: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2})/.exec(local);
  return m ? `${m[3]}/${m[2]}/${m[1]} ${m[4]}:${m[5]}` : local;
}

/** The amount typed in the form, read as svc's prompts and the dashboard read it (money.ts). */
export { parseTypedAmount as parseTyped };
