// CSV files other programs wrote (a bank's statement, a batch a spreadsheet saved),
// read whole with csv-parse before anything is done with them, never by splitting
// lines: quoted fields with commas, quotes and newlines, a UTF-8 byte-order mark
// (Excel writes one), CRLF or LF, `;` as the separator where the decimal mark is a
// comma (detected from the header, or --separador), and, where the caller allows it,
// the Windows-1252 text Excel still writes on Spanish-language Windows. A file that
// does not parse whole is refused naming its line: nothing is done from half a file.
// Every CSV svc reads (refund batches, payment-request batches, bank statements)
// comes through here, so a quirk fixed once is fixed for all of them.
import { readFileSync, statSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { UsageError } from '../../errors.js';
import { AmountError, parseTypedAmount, type Cents } from '../../domain/money.js';
import { printable } from '../../text.js';

/** Largest CSV read: a batch of thousands of rows or a year of a bank's statement is well under it. */
export const MAX_CSV_BYTES = 16 * 1024 * 1024;

export type Separator = ',' | ';' | '\t';

export interface CsvRow {
  /** The file's line the row starts on (1 is the header), for messages. */
  line: number;
  /** Cells by header name, as written (trimmed). */
  cells: Record<string, string>;
}

export interface CsvFile {
  header: string[];
  rows: CsvRow[];
  separator: Separator;
  /** How the bytes were read: utf-8, or windows-1252 when they were not UTF-8 and the caller allowed it. */
  encoding: 'utf-8' | 'windows-1252';
}

export interface CsvOptions {
  /** How messages name the file: `--lote`, `el extracto`. */
  what?: string;
  separator?: Separator;
  /**
   * `utf-8` refuses other bytes, naming the line (a batch's referencia must match the
   * service's exactly); `auto` reads them as Windows-1252 (a statement's text is only shown).
   */
  encoding?: 'utf-8' | 'auto';
}

const SEPARATORS = { ',': ',', ';': ';', tab: '\t', '\t': '\t', '\\t': '\t' } as const;

/** `--separador` as typed (`,`, `;`, `tab`), or undefined to detect it. */
export function parseSeparator(value: unknown): Separator | undefined {
  if (value === undefined) return undefined;
  const sep = (SEPARATORS as Record<string, Separator>)[String(value)];
  if (!sep)
    throw new UsageError(`--separador "${printable(String(value))}" no es válido: usá , ; o tab`);
  return sep;
}

/** The separator the header line uses most, outside quotes (`;` wins a tie: Spanish-language spreadsheets). */
export function detectSeparator(text: string): Separator {
  const counts = { ',': 0, ';': 0, '\t': 0 };
  let quoted = false;
  for (const ch of text) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === '\n' || ch === '\r')) break;
    else if (!quoted && ch in counts) counts[ch as keyof typeof counts]++;
  }
  if (counts['\t'] > counts[';'] && counts['\t'] > counts[',']) return '\t';
  return counts[';'] >= counts[','] && counts[';'] > 0 ? ';' : ',';
}

/** The text of a file: UTF-8 when it is valid UTF-8, else Windows-1252 (Excel's "CSV" on Windows). */
export function decodeText(bytes: Buffer): { text: string; encoding: CsvFile['encoding'] } {
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), encoding: 'utf-8' };
  } catch {
    return { text: new TextDecoder('windows-1252').decode(bytes), encoding: 'windows-1252' };
  }
}

/** What a batch says when its file was not UTF-8 and was read as Windows-1252. */
export function encodingNote(file: CsvFile, what: string): string | undefined {
  return file.encoding === 'windows-1252'
    ? `${what}: no es UTF-8; se leyó como Windows-1252 (el "CSV" de Excel en Windows)`
    : undefined;
}

/** Reads and parses `path` whole; a UsageError (exit 2) naming the file (and line) when it cannot. */
export function readCsvFile(path: string, options: CsvOptions = {}): CsvFile {
  const name = `${options.what ?? 'el archivo'} ${printable(path)}`;
  let bytes: Buffer;
  try {
    const st = statSync(path);
    if (st.isDirectory()) throw new UsageError(`${name}: es una carpeta`);
    if (!st.isFile()) throw new UsageError(`${name}: no es un archivo`);
    if (st.size > MAX_CSV_BYTES)
      throw new UsageError(`${name}: ${st.size} bytes, más de lo que svc lee (16 MiB)`);
    bytes = readFileSync(path);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(
      `${name}: ${code === 'ENOENT' ? 'no existe' : code === 'EACCES' ? 'sin permiso de lectura' : (err as Error).message}`,
    );
  }
  const decoded = decodeText(bytes);
  if (decoded.encoding !== 'utf-8' && options.encoding !== 'auto') {
    const loose = bytes.toString('utf8');
    const line = loose.slice(0, loose.indexOf('\uFFFD')).split('\n').length;
    throw new UsageError(
      `${name}, línea ${line}: no es UTF-8; no se usó nada del archivo`,
      'guardalo como "CSV UTF-8" desde la planilla',
    );
  }
  return parseCsvText(decoded.text, { ...options, path, decoded: decoded.encoding });
}

/** Parses CSV text (see readCsvFile); `path` only names the file in messages. */
export function parseCsvText(
  text: string,
  options: CsvOptions & { path?: string; decoded?: CsvFile['encoding'] } = {},
): CsvFile {
  const name = `${options.what ?? 'el archivo'}${options.path ? ` ${printable(options.path)}` : ''}`;
  // One line ending (files pasted together mix CRLF and LF): lines are then counted exactly.
  const body = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  if (body.trim() === '')
    throw new UsageError(`${name} está vacío (se espera un encabezado y una fila por línea)`);
  const separator = options.separator ?? detectSeparator(body);
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(body, {
      delimiter: separator,
      record_delimiter: '\n',
      info: true,
      skip_empty_lines: true,
      relax_column_count: false,
      trim: true,
    }) as never;
  } catch (err) {
    const e = err as { lines?: number; code?: string; message: string };
    const why =
      e.code === 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH'
        ? 'tiene otra cantidad de columnas que el encabezado'
        : e.code === 'CSV_QUOTE_NOT_CLOSED'
          ? 'abre comillas que no cierra'
          : e.code === 'CSV_INVALID_CLOSING_QUOTE' ||
              e.code === 'CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE'
            ? 'tiene comillas mal cerradas'
            : 'no se puede leer como CSV';
    throw new UsageError(
      `${name}, línea ${e.lines ?? '?'}: ${why}; no se usó nada del archivo`,
      separator === ';' ? undefined : 'si el separador es otro, indicalo con --separador ";"',
    );
  }
  const [head, ...rest] = records;
  if (!head)
    throw new UsageError(`${name} está vacío (se espera un encabezado y una fila por línea)`);
  const header = head.record.map((h) => h.trim());
  const seen = new Set<string>();
  for (const h of header) {
    if (h === '')
      throw new UsageError(`${name}, línea 1: el encabezado tiene una columna sin nombre`);
    const key = fold(h);
    if (seen.has(key))
      throw new UsageError(
        `${name}, línea 1: la columna "${printable(h)}" está dos veces en el encabezado`,
      );
    seen.add(key);
  }
  const rows = rest.map(({ record, info }) => ({
    // info.lines is the line the record ends on; a quoted field may span several.
    line: info.lines - record.reduce((n, cell) => n + (cell.match(/\n/g)?.length ?? 0), 0),
    cells: Object.fromEntries(header.map((h, i) => [h, record[i] ?? ''])),
  }));
  return { header, rows, separator, encoding: options.decoded ?? 'utf-8' };
}

/**
 * A batch's `monto` cell, read as svc's prompts read a typed amount (money.ts
 * parseTypedAmount): 1500, 1500.50, 1500,50, 1.500,50 or $ 1.500,50, as a spreadsheet in
 * Spanish saves it; 1.500, which reads two ways, is refused naming both. `orElse` names
 * what else the column takes (a refund's "total").
 */
export function cellAmount(text: string, orElse = ''): Cents {
  try {
    return parseTypedAmount(text);
  } catch (err) {
    if (!(err instanceof AmountError)) throw err;
    throw new UsageError(
      err.problem === 'empty' ? `monto vacío${orElse}` : `monto ${err.message}${orElse}`,
    );
  }
}

/** A header name as compared: case and accents ignored, so `Día` is `dia`. */
function fold(s: string): string {
  return s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .trim();
}

/** The header's name for a column: the one `--columnas` gives, else the first candidate present (case and accents ignored). */
export function findColumn(
  file: CsvFile,
  candidates: readonly string[],
  given?: string,
): string | undefined {
  if (given !== undefined) return file.header.find((h) => fold(h) === fold(given));
  for (const c of candidates) {
    const found = file.header.find((h) => fold(h) === fold(c));
    if (found) return found;
  }
  return undefined;
}

/**
 * Other names spreadsheets give a batch's columns (any case or accents), after svc's own:
 * the words a bank statement uses for the same things (liquidaciones conciliar reads them
 * too), and the obvious English ones.
 */
export const COLUMN_SYNONYMS: Readonly<Record<string, readonly string[]>> = {
  concepto: ['descripcion', 'detalle', 'description'],
  monto: ['importe', 'amount'],
  referencia: ['ref', 'reference'],
  vencimiento: ['vence', 'vto', 'fecha de vencimiento'],
  cobro: ['codigo', 'cobro_id', 'id cobro'],
  transaccion: ['transaccion_id'],
  motivo: ['razon', 'comentario', 'observaciones'],
};

/**
 * A batch's columns by svc's names (`cobro`, `monto`…) or their synonyms, any case or
 * accents: refuses a file that lacks a required column. Columns svc does not know are
 * left out of the batch and passed to `ignored`, which says so (a typo of `motivo` is
 * then seen, not silently dropped); without `ignored` they are refused.
 */
export function batchColumns<C extends string>(
  file: CsvFile,
  what: string,
  known: readonly C[],
  required: readonly C[],
  ignored?: (line: string) => void,
): Partial<Record<C, string>> {
  const names: Partial<Record<C, string>> = {};
  for (const c of known) {
    const h = findColumn(file, [c, ...(COLUMN_SYNONYMS[c] ?? [])]);
    if (h !== undefined) names[c] = h;
  }
  const missing = required.filter((c) => names[c] === undefined);
  if (missing.length)
    throw new UsageError(
      `${what}, línea 1: faltan las columnas ${missing.join(', ')} (columnas: ${known.join(', ')})`,
    );
  const used = new Set(Object.values(names));
  const unknown = file.header.filter((h) => !used.has(h));
  if (unknown.length && ignored)
    ignored(
      `${what}: ${unknown.length === 1 ? 'la columna' : 'las columnas'} ${unknown.map((u) => `"${printable(u)}"`).join(', ')} no ${unknown.length === 1 ? 'es' : 'son'} de svc: no se ${unknown.length === 1 ? 'usa' : 'usan'} (columnas de svc: ${known.join(', ')})`,
    );
  else if (unknown.length)
    throw new UsageError(
      `${what}, línea 1: columnas que svc no conoce: ${unknown.map((u) => `"${printable(u)}"`).join(', ')} (columnas: ${known.join(', ')})`,
    );
  return names;
}
