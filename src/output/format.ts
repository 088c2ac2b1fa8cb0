// Rendering data for people and for scripts: JSON exactly as received, tables on a
// terminal, tab-separated rows when piped, coloured states. Every value in a table or
// a record is rendered by `shown` (src/text.ts), on a terminal and piped alike: a
// piped TSV often ends on a terminal too (`| head`), and a tab or a line break inside
// a value would break its row. --json is the byte-exact channel when piped; on a
// terminal its unsafe characters are \u escapes (jsonFor), the same JSON value.
import type { IO, Colors } from './io.js';
import { jsonText } from '../api/exact.js';
import {
  csvGuard,
  displayWidth,
  fitWidth,
  isUnsafe,
  jsonGuard,
  shown,
  terminalGuard,
  wrapWords,
} from '../text.js';

/** JSON text as --json writes it: as is when piped, through jsonGuard on a terminal (as IO.outRaw). */
const jsonFor = (io: IO, text: string) => (io.stdoutTTY ? jsonGuard(text) : text);

/** `--json`: the value as the service sent it, field order and strings kept. */
export function printJson(io: IO, value: unknown): void {
  // Not through out()'s terminal guard, which keeps SGR: JSON has its own (jsonFor).
  io.stdout.write(jsonFor(io, `${jsonText(value)}\n`));
}

/**
 * `--json` of a list, written as it is read: the same bytes as printJson of the
 * whole array, one item's text at a time, so a list of 10,000 is never one 10 MB
 * string.
 */
export async function printJsonItems(io: IO, items: Iterable<unknown>): Promise<void> {
  let first = true;
  await writeLines(
    io,
    (function* () {
      for (const item of items) {
        // An item's own lines are indented one level more; JSON strings hold no raw newline.
        yield jsonFor(io, `${first ? '[' : ','}\n  ${jsonText(item, '  ')}`);
        first = false;
      }
      yield first ? '[]\n' : '\n]\n';
    })(),
  );
}

/**
 * Writes text pieces to stdout in chunks of about 64 KB, waiting whenever the
 * reader is behind: a slow pipe (`svc … | jq`) holds one chunk in memory, not the
 * whole output. (A reader gone away ends the process quietly: see cli/entry.ts.)
 */
async function writeLines(io: IO, pieces: Iterable<string>): Promise<void> {
  let chunk = '';
  const flush = async () => {
    const more = io.stdout.write(chunk);
    chunk = '';
    if (!more) await new Promise((resolve) => io.stdout.once('drain', resolve));
  };
  for (const piece of pieces) {
    chunk += piece;
    if (chunk.length >= 65_536) await flush();
  }
  if (chunk) await flush();
}

export interface Column<T> {
  header: string;
  value: (row: T) => string;
  /** Colour applied on a terminal only. */
  style?: (text: string, row: T, c: Colors) => string;
  align?: 'left' | 'right';
  /** Free text (concepto, referencia, a URL): shortened with "…" when the table is wider than the terminal. */
  shrink?: boolean;
  /** With shrink: broken at spaces onto more lines of the row instead of shortened, for sentences whose end matters (a timeline's "la app respondió 500"). */
  wrap?: boolean;
  /**
   * Left out, lowest first, when the terminal is too narrow even with free text
   * shortened. Priority follows what a person reads: amounts stay longest (never
   * cut), then states and dates; ids and codes are never cut.
   */
  drop?: number;
}

/** What fitColumns needs of a column: its header's and its widest cell's width. */
export interface ColumnSize {
  header: number;
  natural: number;
  shrink?: boolean;
  drop?: number;
  /** Every row holds the same value (and there are at least two rows): it can be said once above the table instead. */
  constant?: boolean;
  /** A wrapped column's longest word: it is never narrower, so no word is cut. */
  floor?: number;
}

/** Free text is never shortened below this (or below its header). */
const MIN_FREE = 10;
const GAP = 2;

/**
 * The width of each column so that a table fits `total` terminal columns: free-text
 * columns are shortened first (the widest first, never below MIN_FREE or their
 * header); when that is not enough, a column with the same value in every row leaves
 * the table (null: the caller says it once above), lowest `drop` first, since that
 * loses nothing; then droppable columns are left out (null), lowest `drop` first.
 * When nothing else can give, the widths stay and the terminal wraps.
 */
export function fitColumns(cols: readonly ColumnSize[], total: number): (number | null)[] {
  const kept = new Set(cols.map((_, i) => i));
  const floor = (c: ColumnSize) => Math.min(c.natural, Math.max(c.header, MIN_FREE, c.floor ?? 0));
  for (;;) {
    const idx = [...kept];
    const free = idx.filter((i) => cols[i]!.shrink);
    const fixed = idx.filter((i) => !cols[i]!.shrink).reduce((sum, i) => sum + cols[i]!.natural, 0);
    const avail = total - fixed - GAP * (idx.length - 1);
    const widthAt = (cap: number) => (i: number) =>
      Math.max(floor(cols[i]!), Math.min(cols[i]!.natural, cap));
    const sumAt = (cap: number) => free.reduce((sum, i) => sum + widthAt(cap)(i), 0);
    if (sumAt(0) <= avail) {
      // The largest cap on free columns that fits.
      let lo = 0;
      let hi = Math.max(0, ...free.map((i) => cols[i]!.natural));
      while (lo < hi) {
        const mid = Math.ceil((lo + hi) / 2);
        if (sumAt(mid) <= avail) lo = mid;
        else hi = mid - 1;
      }
      const widths = cols.map((c, i) =>
        !kept.has(i) ? null : c.shrink ? widthAt(lo)(i) : c.natural,
      );
      // What the cap leaves over (less than one column per free column) goes to the widest.
      let spare = avail - sumAt(lo);
      for (const i of [...free].sort((a, b) => cols[b]!.natural - cols[a]!.natural)) {
        if (spare > 0 && widths[i]! < cols[i]!.natural) {
          widths[i]!++;
          spare--;
        }
      }
      return widths;
    }
    const rank = (i: number) => cols[i]!.drop ?? Infinity;
    // Said once above the table loses nothing: before anything is left out. Among equals, the rightmost first.
    const constant = idx
      .filter((i) => cols[i]!.constant)
      .sort((a, b) => rank(a) - rank(b) || b - a);
    if (constant.length) {
      kept.delete(constant[0]!);
      continue;
    }
    const droppable = idx
      .filter((i) => cols[i]!.drop !== undefined)
      .sort((a, b) => cols[a]!.drop! - cols[b]!.drop!);
    if (droppable.length === 0)
      return cols.map((c, i) => (!kept.has(i) ? null : c.shrink ? floor(c) : c.natural));
    kept.delete(droppable[0]!);
  }
}

/** A table on a terminal; tab-separated rows (no header) when piped; CSV of the items themselves with --csv (`fields`: its header when there are none). */
export async function printTable<T>(
  io: IO,
  columns: Column<T>[],
  items: Iterable<T>,
  empty = 'sin resultados',
  fields?: readonly string[],
): Promise<void> {
  if (io.csv) return printCsv(io, items, fields);
  if (!io.stdoutTTY) {
    // Piped rows go out as they are read.
    const lines = function* () {
      for (const row of items) {
        pipedRow = true;
        let line: string;
        try {
          line = `${columns.map((col) => shown(col.value(row))).join('\t')}\n`;
        } finally {
          pipedRow = false;
        }
        yield line;
      }
    };
    return writeLines(io, lines());
  }
  const rows = Array.isArray(items) ? (items as T[]) : [...items];
  if (rows.length === 0) {
    io.err(io.c.dim(empty));
    return;
  }
  // Every cell as shown, then fitted to the terminal: no row ever wraps when it can be helped.
  const cells = rows.map((row) => columns.map((col) => shown(col.value(row))));
  const sizes = columns.map((col, i) => ({
    header: displayWidth(col.header),
    natural: cells.reduce((w, r) => Math.max(w, displayWidth(r[i]!)), displayWidth(col.header)),
    shrink: col.shrink,
    drop: col.drop,
    constant: cells.length > 1 && cells.every((r) => r[i] === cells[0]![i]),
    floor: col.wrap
      ? cells.reduce((w, r) => Math.max(w, ...r[i]!.split(' ').map(displayWidth)), 0)
      : undefined,
  }));
  const widths = io.columns ? fitColumns(sizes, io.columns) : sizes.map((c) => c.natural);
  const keep = columns.map((_, i) => i).filter((i) => widths[i] !== null);
  const gone = columns.map((_, i) => i).filter((i) => widths[i] === null);
  // A column with one value for every row that left the table is said once above it; the others are named below.
  const once = gone
    .filter((i) => sizes[i]!.constant)
    .map((i) => [columns[i]!.header, cells[0]![i]!, i] as const);
  const left = gone.filter((i) => !sizes[i]!.constant).map((i) => columns[i]!.header);
  const { default: Table } = await import('cli-table3');
  const table = new Table({
    head: keep.map((i) => (io.color ? io.c.bold(columns[i]!.header) : columns[i]!.header)),
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
    // Borderless, columns two spaces apart (as gh does): long lists stay readable and copyable.
    chars: {
      top: '',
      'top-mid': '',
      'top-left': '',
      'top-right': '',
      bottom: '',
      'bottom-mid': '',
      'bottom-left': '',
      'bottom-right': '',
      left: '',
      'left-mid': '',
      mid: '',
      'mid-mid': '',
      right: '',
      'right-mid': '',
      middle: '  ',
    },
    colAligns: keep.map((i) => columns[i]!.align ?? 'left'),
  });
  rows.forEach((row, r) => {
    table.push(
      keep.map((i) => {
        const col = columns[i]!;
        // A column at its natural width holds every cell whole: nothing to measure again.
        const text = !(col.shrink && widths[i]! < sizes[i]!.natural)
          ? cells[r]![i]!
          : col.wrap
            ? wrapCell(cells[r]![i]!, widths[i]!)
            : fitWidth(cells[r]![i]!, widths[i]!);
        return col.style ? col.style(text, row, io.c) : text;
      }),
    );
  });
  const above = saidOnce(
    io,
    once.map(([header, value, i]) => [
      header,
      value,
      columns[i]!.style && ((v: string) => columns[i]!.style!(v, rows[0]!, io.c)),
    ]),
  );
  const text = above + table.toString();
  // A list longer than the screen goes through the pager (less -FRX quits at once when it fits).
  if (
    !(
      io.pager &&
      io.rows &&
      rows.length + 1 + above.split('\n').length - 1 >= io.rows &&
      (await page(io.pager, io.env, terminalGuard(text)))
    )
  )
    io.out(text);
  if (left.length)
    for (const line of wrapWords(
      `sin lugar para ${left.join(', ')} (--json las trae)`,
      io.columns ?? Infinity,
    ))
      io.err(io.c.dim(line));
}

/** A cell broken at spaces into lines of `width` (a word wider than that shortened with "…", the only cut). */
function wrapCell(text: string, width: number): string {
  return wrapWords(text, width)
    .map((line) => fitWidth(line, width))
    .join('\n');
}

/**
 * The columns a table said once above itself (`ESTADO estimado`): on one line when
 * they fit, else one a line, a long value (a shared concept) broken at spaces.
 */
function saidOnce(
  io: IO,
  said: (readonly [header: string, value: string, style?: (v: string) => string])[],
): string {
  if (said.length === 0) return '';
  const room = io.columns ?? Infinity;
  const head = (h: string) => (io.color ? io.c.bold(h) : h);
  const width = said.reduce(
    (w, [h, v]) => w + displayWidth(h) + 1 + displayWidth(v),
    3 * (said.length - 1),
  );
  if (width <= room)
    return `${said.map(([h, v, style]) => `${head(h)} ${style ? style(v) : v}`).join('   ')}\n`;
  return said
    .flatMap(([h, v, style]) =>
      displayWidth(h) + 1 + displayWidth(v) <= room
        ? [`${head(h)} ${style ? style(v) : v}`]
        : wrapWords(`${h} ${v}`, room),
    )
    .map((line) => `${line}\n`)
    .join('');
}

/** Shows text through the pager; false when the pager could not be started (the caller prints it). */
async function page(
  command: string,
  environment: NodeJS.ProcessEnv,
  text: string,
): Promise<boolean> {
  const { spawn } = await import('node:child_process');
  return new Promise((resolve) => {
    // LESS=FRX as gh sets it: quit when it fits, keep colours, leave the text on screen.
    // svc writes UTF-8 whatever the locale says: less shows "…" and "á" as <E2><80><A6> otherwise.
    const env = {
      ...environment,
      LESS: environment.LESS ?? 'FRX',
      LESSCHARSET: environment.LESSCHARSET ?? 'utf-8',
    };
    const child = spawn(command, { shell: true, stdio: ['pipe', 'inherit', 'inherit'], env });
    child.once('error', () => resolve(false));
    // The person may quit the pager before reading everything.
    child.stdin.once('error', () => {});
    child.once('exit', (code) => resolve(code !== 127));
    child.stdin.end(`${text}\n`);
  });
}

/** One record as "key  value" lines on a terminal, "key<TAB>value" when piped. */
export function printRecord(
  io: IO,
  pairs: [string, string, ((s: string, c: Colors) => string)?][],
): void {
  const safe = pairs.map(([k, v, style]) => [shown(k), shown(v), style] as const);
  if (!io.stdoutTTY) {
    for (const [k, v] of safe) io.out(`${k}\t${v}`);
    return;
  }
  const width = Math.max(...safe.map(([k]) => k.length));
  // A value longer than the room beside its key goes on under itself, broken at spaces.
  const room = io.columns === undefined ? Infinity : Math.max(20, io.columns - width - 2);
  for (const [k, v, style] of safe) {
    const [first = '', ...rest] = displayWidth(v) > room ? wrapWords(v, room) : [v];
    io.out(`${io.c.dim(k.padEnd(width))}  ${style ? style(first, io.c) : first}`);
    for (const line of rest) io.out(`${' '.repeat(width + 2)}${style ? style(line, io.c) : line}`);
  }
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

/**
 * A value svc reads openly (a state, `tipo`, `medio`: api/enums.ts OPEN_FIELDS) as a
 * table or record shows it: as the service sent it, marked ` (?)` when svc does not
 * know it, so a person sees that nothing was decided from it. --json and --csv keep it bare.
 */
export function openText(value: string, known: readonly string[]): string {
  return known.includes(value) ? value : `${value} (?)`;
}

/** A state in its colour; call it with the text as shown (a known state is always safe). */
export function colorState(state: string, c: Colors): string {
  const name = Object.hasOwn(STATE_COLORS, state) ? STATE_COLORS[state] : undefined;
  const fn = name ? (c[name] as (s: string) => string) : undefined;
  return fn ? fn(state) : state;
}

/** Set while piped rows are made: a null is an empty field there, as in `--csv`. */
let pipedRow = false;

/** A value that may be null: `dash` on a terminal, an empty field in piped rows (as `--csv` writes it). */
export const nullable = (v: string | null | undefined, dash = '-') =>
  v === null || v === undefined || v === '' ? (pipedRow ? '' : dash) : v;

/** Shows a key without revealing it: svc_test_…abcd. */
export function maskKey(key: string | undefined | null): string {
  if (!key) return '-';
  const prefix = key.startsWith('svc_live_')
    ? 'svc_live_'
    : key.startsWith('svc_test_')
      ? 'svc_test_'
      : '';
  return `${prefix}…${key.slice(-4)}`;
}

/** A number as a spreadsheet reads one: a sign only in front of digits. */
const PLAIN_NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;
/** What makes a spreadsheet read a cell as a formula (OWASP, "CSV injection"). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, a quote, a line break or
 * edge blanks. A value a spreadsheet would run as a formula (`=HYPERLINK(…)`,
 * `@SUM(…)`, `+…`, `-…`, a leading tab or CR) and is not a plain number gets a
 * leading `'`, as OWASP advises: the accountant's spreadsheet shows it as text.
 */
export function csvField(value: unknown, separator: ',' | ';' | '\t' = ','): string {
  // Escaped whether piped or not: the file is read later, with cat too.
  const raw = csvGuard(csvText(value));
  const text = FORMULA_START.test(raw) && !PLAIN_NUMBER.test(raw) ? `'${raw}` : raw;
  return /["\r\n]|^\s|\s$/.test(text) || text.includes(separator)
    ? `"${text.replaceAll('"', '""')}"`
    : text;
}

/** A value as CSV text: null is empty, an array or object its JSON. */
function csvText(value: unknown): string {
  return value === null || value === undefined
    ? ''
    : typeof value === 'object'
      ? JSON.stringify(value)
      : String(value);
}

/** An item's fields, a nested object's one level down as `medios.tarjeta`. */
function flat(item: unknown): [string, unknown][] {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return [['valor', item]];
  const out: [string, unknown][] = [];
  for (const [k, v] of Object.entries(item)) {
    if (v !== null && typeof v === 'object' && !Array.isArray(v))
      for (const [k2, v2] of Object.entries(v)) out.push([`${k}.${k2}`, v2]);
    else out.push([k, v]);
  }
  return out;
}

/** The CSV header of an item: its field names as printCsv writes them. */
export function csvHeader(item: unknown): string[] {
  return flat(item).map(([k]) => k);
}

/**
 * `--csv` of a list (RFC 4180, CRLF): a header of the first item's field names (of
 * `fields` when there is none: an empty result is still a header row), then one row
 * per item with the values as the service sent them (amounts as its decimal strings,
 * dates as they are, null as an empty field), written as it is read. On a terminal a
 * value with anything unsafe in it is shown as tables show it (`shown`): piped, the
 * bytes are the data.
 */
export async function printCsv(
  io: IO,
  items: Iterable<unknown>,
  fields?: readonly string[],
): Promise<void> {
  let header: readonly string[] | undefined;
  const field = (value: unknown) => {
    const text = csvText(value);
    return csvField(io.stdoutTTY && isUnsafe(text) ? shown(text) : text);
  };
  await writeLines(
    io,
    (function* () {
      for (const item of items) {
        const values = flat(item);
        if (!header) {
          header = csvHeader(item);
          yield `${header.map(field).join(',')}\r\n`;
        }
        const byName = new Map(values);
        yield `${header.map((k) => field(byName.get(k))).join(',')}\r\n`;
      }
      if (!header && fields) yield `${fields.map(field).join(',')}\r\n`;
    })(),
  );
}
