// Checks of argument and option values, shared by the commands: each failure is a
// UsageError (exit 2) raised before any request is made.
import { UsageError } from './errors.js';
import { printable } from '../text.js';

export { printable };

/** A positive integer id, as the service uses. */
export function parseId(text: unknown, what = 'id'): number {
  const s = typeof text === 'string' ? text.trim() : '';
  if (!/^[1-9][0-9]{0,14}$/.test(s)) {
    throw new UsageError(`${what} inválido: "${printable(String(text ?? ''))}" (se espera un entero positivo, ej. 42)`);
  }
  return Number(s);
}

export function parseChoice<T extends string>(value: unknown, allowed: readonly T[], flag: string): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  const upper = typeof value === 'string' ? value.toUpperCase() : '';
  const hint = (allowed as readonly string[]).includes(upper) ? ` (¿quisiste decir ${upper}?)` : '';
  throw new UsageError(`${flag} "${printable(String(value))}" no es válido${hint}; valores posibles: ${allowed.join(', ')}`);
}

export function parsePositiveInt(text: unknown, flag: string, max = 1_000_000): number {
  const s = typeof text === 'string' ? text.trim() : '';
  if (!/^[0-9]{1,9}$/.test(s) || Number(s) < 1 || Number(s) > max) {
    throw new UsageError(`${flag} "${printable(String(text ?? ''))}" no es válido (entero entre 1 y ${max})`);
  }
  return Number(s);
}

/** https only: any URL the client sends to the service. */
export function parseHttpsUrl(text: unknown, flag: string): string {
  const s = typeof text === 'string' ? text.trim() : '';
  let url: URL | undefined;
  try {
    url = new URL(s);
  } catch {
    url = undefined;
  }
  if (!url || url.protocol !== 'https:' || !url.hostname) {
    throw new UsageError(`${flag} "${printable(s)}" no es una URL https (el servicio solo acepta https://…)`);
  }
  if (s.length > 2048) throw new UsageError(`${flag} es demasiado larga (máximo 2048 caracteres)`);
  return s;
}

