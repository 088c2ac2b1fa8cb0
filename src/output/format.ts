// Rendering data for people and for scripts: JSON exactly as received, tables on a
// terminal, tab-separated rows when piped, coloured states.
import type { IO, Colors } from './io.js';

/** `--json`: the value as the service sent it, field order and strings kept. */
export function printJson(io: IO, value: unknown): void {
  io.out(JSON.stringify(value, null, 2));
}

export interface Column<T> {
  header: string;
  value: (row: T) => string;
  /** Colour applied on a terminal only. */
  style?: (text: string, row: T, c: Colors) => string;
  align?: 'left' | 'right';
}

/** A table on a terminal; tab-separated rows (no header) when piped. */
export async function printTable<T>(io: IO, columns: Column<T>[], rows: T[], empty = 'sin resultados'): Promise<void> {
  if (!io.stdoutTTY) {
    for (const row of rows) io.out(columns.map((col) => clean(col.value(row))).join('\t'));
    return;
  }
  if (rows.length === 0) {
    io.err(io.c.dim(empty));
    return;
  }
  const { default: Table } = await import('cli-table3');
  const table = new Table({
    head: columns.map((col) => (io.color ? io.c.bold(col.header) : col.header)),
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
    // Borderless, columns two spaces apart (as gh does): long lists stay readable and copyable.
    chars: {
      top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '',
      left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: '  ',
    },
    colAligns: columns.map((col) => col.align ?? 'left'),
  });
  for (const row of rows) {
    table.push(columns.map((col) => (col.style ? col.style(col.value(row), row, io.c) : col.value(row))));
  }
  io.out(table.toString());
}

/** One record as "key  value" lines on a terminal, "key<TAB>value" when piped. */
export function printRecord(io: IO, pairs: [string, string, ((s: string, c: Colors) => string)?][]): void {
  if (!io.stdoutTTY) {
    for (const [k, v] of pairs) io.out(`${k}\t${clean(v)}`);
    return;
  }
  const width = Math.max(...pairs.map(([k]) => k.length));
  for (const [k, v, style] of pairs) io.out(`${io.c.dim(k.padEnd(width))}  ${style ? style(v, io.c) : v}`);
}

/** Tabs and newlines inside a value would break a TSV row. */
function clean(text: string): string {
  return text.replace(/[\t\r\n]+/g, ' ');
}

const STATE_COLORS: Record<string, keyof Colors> = {
  PENDIENTE: 'yellow',
  EN_PROCESO: 'cyan',
  PAGADA: 'green',
  PAGADA_PARCIALMENTE: 'blue',
  CANCELADO: 'red',
  DEVUELTA: 'magenta',
  DEVUELTA_PARCIALMENTE: 'magenta',
  ACREDITADO: 'green',
  RECHAZADO: 'red',
  estimado: 'yellow',
};

export function colorState(state: string, c: Colors): string {
  const name = STATE_COLORS[state];
  const fn = name ? (c[name] as (s: string) => string) : undefined;
  return fn ? fn(state) : state;
}

export const nullable = (v: string | null | undefined, dash = '-') => (v === null || v === undefined || v === '' ? dash : v);

/** Shows a key without revealing it: svc_test_…abcd. */
export function maskKey(key: string | undefined | null): string {
  if (!key) return '-';
  const prefix = key.startsWith('svc_live_') ? 'svc_live_' : key.startsWith('svc_test_') ? 'svc_test_' : '';
  return `${prefix}…${key.slice(-4)}`;
}
