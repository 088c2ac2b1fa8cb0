// One list item svc cannot take exactly: an amount beyond cents or beyond 12 integer
// digits ("10.001", a 30-digit amount), an integer past 2^53 − 1 (an id JSON.parse
// cannot hold). Such an item is not a broken reply (the rest of the list is read and
// shown), but nothing svc reckons may rest on it: it is kept as sent, marked with what
// is wrong with it, and every total, "ya devuelto", per-day sum, `caso`, plan or dry
// run that depends on it is refused naming it (InexactRowError, exit 6). A single
// record fetched by id with such a value stays refused as a reply of the wrong shape.
//
// The one place that tells: inexactOf classifies an item for the list reader's check
// (client.callList), exactItem makes the item svc reads of it (each integer it cannot
// hold as the digits sent, the item's text kept for --json), markOf tells a row so
// read, and refuseInexact is what each figure made of rows calls first.
import type * as z from 'zod/mini';
import { checkAmount } from '../domain/money.js';
import { asSent } from '../domain/dates.js';
import { EXIT, SvcError } from '../errors.js';
import { Decimal, shapeProblem } from './schemas.js';

/** What the list reader keeps of an item svc cannot take exactly. */
export interface Inexact {
  /** What is wrong, in Spanish ("monto 10.001 con más de dos decimales"). */
  why: string;
  /** The kind of record, as a sentence names it ("la devolución"). */
  kind: string;
}

/** A row read from such an item: the mark, and the item's text as the service sent it. */
interface Mark extends Inexact {
  text: string;
}

const marks = new WeakMap<object, Mark>();
/** Whether any row was marked in this process: until one is, --json is JSON.stringify alone (a replacer slows a list of a million). */
let anyMarked = false;

/** The record kind of a list's path, as a sentence names one of its rows. */
export function kindOfPath(path: string): string {
  if (/devoluciones/.test(path)) return 'la devolución';
  if (/transacciones/.test(path)) return 'la transacción';
  if (/liquidaciones/.test(path)) return 'la liquidación';
  if (/cobros/.test(path)) return 'el cobro';
  if (/cargos/.test(path)) return 'el cargo';
  return 'el registro';
}

/**
 * Why svc cannot take `value` exactly when that is all that keeps it from `schema` (an
 * amount field of more than two decimals or 12 integer digits, an integer past 2^53 − 1);
 * undefined when it fits, or when something else is wrong with it (a reply of the wrong
 * shape, as before).
 */
export function inexactOf(schema: z.ZodMiniType, value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const shape = (schema as unknown as { shape?: Record<string, unknown> }).shape ?? {};
  const reasons: string[] = [];
  const patched: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const [k, v] of Object.entries(patched)) {
    if (typeof v === 'number' && Number.isInteger(v) && !Number.isSafeInteger(v)) {
      reasons.push(`${k} más allá de 2^53−1`);
      patched[k] = 1;
    } else if (shape[k] === Decimal && typeof v === 'string' && /^\d+(\.\d+)?$/.test(v)) {
      const got = checkAmount(v);
      if ('cents' in got) continue;
      const text = v.length > 24 ? `${v.slice(0, 24)}…` : v;
      if (got.problem === 'decimals') reasons.push(`${k} ${text} con más de dos decimales`);
      else if (got.problem === 'too_large')
        reasons.push(`${k} ${text} de más de 12 cifras enteras`);
      else continue;
      patched[k] = '0.00';
    }
  }
  if (reasons.length === 0 || shapeProblem(schema, patched) !== null) return undefined;
  return reasons.join('; ');
}

/**
 * The item svc reads of one it cannot take exactly: as parsed, with each integer JSON
 * cannot hold given as the digits sent (so it is shown as sent and equals no id svc
 * holds), marked, its text kept for --json.
 */
export function exactItem<T>(parsed: T, text: string, mark: Inexact): T {
  if (parsed === null || typeof parsed !== 'object') return parsed;
  const row: Record<string, unknown> = { ...(parsed as Record<string, unknown>) };
  const raw = rawMembers(text);
  for (const [k, v] of Object.entries(row))
    if (typeof v === 'number' && !Number.isSafeInteger(v) && raw.has(k)) row[k] = raw.get(k);
  marks.set(row, { ...mark, text: text.trim() });
  anyMarked = true;
  return row as T;
}

/** The mark of a row svc cannot take exactly (also through a copy dates.ts inZone made); undefined for any other. */
export function markOf(row: unknown): (Inexact & { text: string }) | undefined {
  if (row === null || typeof row !== 'object') return undefined;
  return marks.get(row) ?? marks.get(asSent(row));
}

/** How a marked row is named: its kind and its id as sent ("la devolución 9007199254740993"). */
export function rowName(row: unknown): string {
  const mark = markOf(row);
  const id = (row as { id?: unknown }).id;
  return `${mark?.kind ?? 'el registro'} ${typeof id === 'number' || typeof id === 'string' ? id : '?'}`;
}

/**
 * A figure made of rows, one of which svc cannot take exactly: the figure is not
 * given (it would leave that row out, or take it wrong). Exit 6, JSON `valor_inexacto`.
 */
export class InexactRowError extends SvcError {
  override name = 'InexactRowError';
  readonly exitCode: number = EXIT.network;
  readonly code = 'valor_inexacto';
  /** The row and what is wrong with it, for the JSON error (`problem`). */
  readonly problem: string;
  constructor(
    /** The row, named as rowName does. */
    readonly row: string,
    readonly why: string,
    what: string,
  ) {
    super(
      `${row} tiene ${why}: es una fila que svc no puede tomar exacta, así que no da ${what} (la fila se ve como llegó en la lista, también con --json)`,
    );
    this.problem = `${row}: ${why}`;
  }
}

/** Throws InexactRowError for the first row svc cannot take exactly; `what` names the figure ("el total", "ya devuelto"). */
export function refuseInexact(rows: Iterable<unknown>, what: string): void {
  for (const row of rows) {
    const mark = markOf(row);
    if (mark) throw new InexactRowError(rowName(row), mark.why, what);
  }
}

/** The marked rows among these, each named with what is wrong with it, for a notice. */
export function inexactRows(rows: Iterable<unknown>): { name: string; why: string }[] {
  const out: { name: string; why: string }[] = [];
  for (const row of rows) {
    const mark = markOf(row);
    if (mark) out.push({ name: rowName(row), why: mark.why });
  }
  return out;
}

// --- the text as sent ---------------------------------------------------------------

/** The top-level members of an object's JSON text: key → the value's text as written. */
export function rawMembers(text: string): Map<string, string> {
  const out = new Map<string, string>();
  let depth = 0;
  let key: string | undefined;
  let valueAt = -1;
  const close = (end: number) => {
    if (key !== undefined && valueAt >= 0) out.set(key, text.slice(valueAt, end).trim());
    key = undefined;
    valueAt = -1;
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '"') {
      const from = i;
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
      if (depth === 1 && key === undefined && valueAt < 0) {
        try {
          key = JSON.parse(text.slice(from, i + 1)) as string;
        } catch {
          return out;
        }
      }
      continue;
    }
    if (ch === '{' || ch === '[') depth++;
    else if (ch === '}' || ch === ']') {
      if (depth === 1) close(i);
      depth--;
    } else if (depth === 1 && ch === ':') valueAt = i + 1;
    else if (depth === 1 && ch === ',') close(i);
  }
  return out;
}

/**
 * JSON text as JSON.stringify(value, null, 2) writes it, except that a row svc could
 * not take exactly is written from its text as sent (re-indented, every number's digits
 * kept): --json keeps what the service sent.
 */
export function jsonText(value: unknown, indent = ''): string {
  if (!anyMarked) {
    const plain = JSON.stringify(value, null, 2) ?? 'null';
    return indent === '' ? plain : plain.replaceAll('\n', `\n${indent}`);
  }
  const sent: string[] = [];
  const text = JSON.stringify(
    value,
    (_k, v: unknown) => {
      const mark = markOf(v);
      if (!mark) return v;
      sent.push(mark.text);
      return `\u0000sent:${sent.length - 1}`;
    },
    2,
  );
  if (text === undefined) return 'null';
  const whole = sent.length === 0 ? text : placeSent(text, sent);
  return indent === '' ? whole : whole.replaceAll('\n', `\n${indent}`);
}

function placeSent(text: string, sent: string[]): string {
  return text.replace(
    /^( *)(.*?)"\\u0000sent:(\d+)"/gm,
    (_m, pad: string, head: string, n) => `${pad}${head}${reindent(sent[Number(n)]!, pad)}`,
  );
}

/** JSON text laid out as JSON.stringify(…, null, 2) lays it out, its tokens as written, from the indentation `pad`. */
export function reindent(text: string, pad = ''): string {
  let out = '';
  let level = 0;
  const nl = () => `\n${pad}${'  '.repeat(level)}`;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === ' ' || ch === '\n' || ch === '\r' || ch === '\t') continue;
    if (ch === '"') {
      const from = i;
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
      out += text.slice(from, i + 1);
    } else if (ch === '{' || ch === '[') {
      let j = i + 1;
      while (j < text.length && /\s/.test(text[j]!)) j++;
      if (text[j] === (ch === '{' ? '}' : ']')) {
        out += ch === '{' ? '{}' : '[]';
        i = j;
        continue;
      }
      level++;
      out += ch + nl();
    } else if (ch === '}' || ch === ']') {
      level--;
      out += nl() + ch;
    } else if (ch === ',') out += `,${nl()}`;
    else if (ch === ':') out += ': ';
    else out += ch;
  }
  return out;
}

/**
 * JSON.parse of svc's own --json output, keeping each integer JSON cannot hold exactly
 * as the digits written (a string): `{"id": 9007199254740993}` reads as
 * `{id: "9007199254740993"}`, never as the neighbouring 9007199254740992.
 */
export function parseExact(text: string): unknown {
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
      continue;
    }
    if (ch !== '-' && (ch < '0' || ch > '9')) continue;
    const m = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!m) continue;
    if (m[1] === undefined && m[2] === undefined && !Number.isSafeInteger(Number(m[0]))) {
      out += `${text.slice(from, i)}"${m[0]}"`;
      from = i + m[0].length;
    }
    i += m[0].length - 1;
  }
  return JSON.parse(from === 0 ? text : out + text.slice(from));
}

/**
 * What svc cannot take exactly in a row of its own --json read back with parseExact (an
 * id past 2^53 − 1 is then a string of digits; an amount beyond cents stays as sent), or
 * undefined: for figures made from that output (svc mcp's totals), which no longer carry
 * the mark.
 */
export function inexactInOutput(
  row: Record<string, unknown>,
  amounts: readonly string[],
): string | undefined {
  const reasons: string[] = [];
  for (const [k, v] of Object.entries(row)) {
    if (typeof v !== 'string') continue;
    if ((k === 'id' || k.endsWith('_id')) && /^-?\d+$/.test(v))
      reasons.push(`${k} más allá de 2^53−1`);
    else if (amounts.includes(k) && /^\d+(\.\d+)?$/.test(v) && !('cents' in checkAmount(v)))
      reasons.push(
        `${k} ${v.length > 24 ? `${v.slice(0, 24)}…` : v} que svc no puede tomar exacto`,
      );
  }
  return reasons.length ? reasons.join('; ') : undefined;
}
