// What the payer reads: amounts and dates in es-AR notation, escaping of every
// interpolated value, and the amount a payer types (1500,50 or 1500.50).
import { AmountError, formatCents, parsePositiveAmount, type Cents } from '../../money.js';

/** Escapes text for HTML content and double- or single-quoted attributes. */
export function esc(value: string | number | bigint): string {
  return String(value).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** "$ 1.234.567,89": thousands with dots, decimals with a comma (string work only). */
export function pesos(cents: Cents): string {
  const [whole, frac] = formatCents(cents).split('.') as [string, string];
  const negative = whole.startsWith('-');
  const digits = negative ? whole.slice(1) : whole;
  const grouped = digits.replace(/\B(?=(\d{3})+(?!\d))/g, '.');
  return `${negative ? '-' : ''}$ ${grouped},${frac}`;
}

/** "2026-12-24 18:00:00" -> "24/12/2026 18:00". Anything else is returned as is. */
export function fecha(local: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2})/.exec(local);
  return m ? `${m[3]}/${m[2]}/${m[1]} ${m[4]}:${m[5]}` : local;
}

/**
 * The amount typed in the form, in cents. Accepts the dot as decimal separator
 * ("1500.50", as the API) and the Argentine notation ("1.500,50", "1500,5").
 * Throws money's AmountError (Spanish, actionable) for anything else.
 */
export function parseTyped(text: string): Cents {
  let t = text.trim().replace(/^\$\s*/, '');
  if (t.includes(',')) {
    if (!/^\d{1,3}(\.\d{3})*(,\d{1,2})?$|^\d+(,\d{1,2})?$/.test(t)) {
      throw new AmountError(`"${text.trim()}" no es un monto válido (ej. 1500,50 o 1500.50)`);
    }
    t = t.replace(/\./g, '').replace(',', '.');
  }
  return parsePositiveAmount(t);
}
