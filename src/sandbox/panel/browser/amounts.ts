// Amounts stay the service's strings; a typed one is read by money.ts as svc's prompts
// and the checkout read it, and a refund compares cents, never floats.
import {
  AmountError,
  formatCents,
  isAmount,
  parseAmount,
  parseTypedAmount,
} from '../../../domain/money.js';
import type { Cents } from '../../../domain/money.js';
import { $, text } from './dom.js';

/** Cents of an amount the sandbox sent (always the API's notation; zero too). */
export const cents = (s: string): Cents => parseAmount(s);

/**
 * An amount typed in a field, read as svc's prompts and the checkout read it
 * (money.ts parseTypedAmount: 1500,50 · 1.500,50 · 1500.50; 1.500 is refused naming
 * both readings), in the API's notation; the refusal is money.ts's own words.
 */
export function typedAmount(typed: string): string {
  return formatCents(parseTypedAmount(typed));
}

/**
 * Says under an amount field how it is read, as svc's prompts say it back
 * ("1.500,50 → 1500.50"), or why it is not an amount, while the person types.
 */
export function showReading(field: HTMLInputElement): void {
  const out = $(`${field.id}-lectura`);
  const typed = field.value.trim();
  out.classList.remove('mal');
  if (!typed) return void text(out, '');
  try {
    const read = typedAmount(typed);
    text(out, isAmount(typed) ? '' : `${typed} → ${read}`);
  } catch (err) {
    if (!(err instanceof AmountError)) throw err;
    out.classList.add('mal');
    text(out, err.message);
  }
}

/**
 * Empties an amount field whose amount was refused and puts the focus in it: left
 * there, what the person types next, after a click at its end, is added to it
 * (4.800 then 4.800,00 made 4.8004.800,00). The refusal beside the form quotes what
 * was typed.
 */
export function clearForRetyping(field: HTMLInputElement): void {
  field.value = '';
  showReading(field);
  field.focus();
}

/** typedAmount of a field; refused, the field is emptied for retyping and the refusal thrown. */
export function amountOf(field: HTMLInputElement): string {
  try {
    return typedAmount(field.value);
  } catch (err) {
    clearForRetyping(field);
    throw err;
  }
}
