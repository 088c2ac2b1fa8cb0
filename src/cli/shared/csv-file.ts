// CSV files other programs wrote (a bank's statement, a batch a spreadsheet saved),
// read whole with csv-parse before anything is done with them: quoted fields with
// commas and newlines, a UTF-8 byte-order mark, CRLF, `;` as the separator where the
// decimal mark is a comma (detected from the header, or --separador), and the
// Windows-1252 text Excel still writes on Spanish-language Windows. A file that does
// not parse whole is refused, naming its line: nothing is read from half a file.
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { UsageError } from '../../errors.js';
import { printable } from '../../text.js';

export interface CsvRow {
  /** The file's line the row starts on (1 is the header), for messages. */
  line: number;
  /** Cells by header name, as written (trimmed). */
  cells: Record<string, string>;
}

export interface CsvFile {
  header: string[];
  rows: CsvRow[];
  separator: ',' | ';' | '\t';
  /** How the bytes were read: utf-8, or windows-1252 when they were not UTF-8. */
  encoding: 'utf-8' | 'windows-1252';
}

const SEPARATORS = { ',': ',', ';': ';', tab: '\t', '\\t': '\t' } as const;

/** `--separador` as typed (`,`, `;`, `tab`), or undefined to detect it. */
export function parseSeparator(value: string | undefined): CsvFile['separator'] | undefined {
  if (value === undefined) return undefined;
  const sep = (SEPARATORS as Record<string, CsvFile['separator']>)[value];
  if (!sep) throw new UsageError(`--separador "${printable(value)}" no es válido: usá , ; o tab`);
  return sep;
}

/** The separator the header line uses most, outside quotes (`;` wins a tie: Spanish-language spreadsheets). */
export function detectSeparator(text: string): CsvFile['separator'] {
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

/** Reads and parses `path` whole; a UsageError naming the file (and line) when it cannot. */
export function readCsvFile(path: string, options: { separator?: CsvFile['separator']; what?: string } = {}): CsvFile {
  const what = options.what ?? 'el archivo';
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no existe' : code === 'EACCES' ? 'sin permiso de lectura' : code === 'EISDIR' ? 'es una carpeta' : (err as Error).message;
    throw new UsageError(`${what} ${printable(path)}: ${why}`);
  }
  const { text, encoding } = decodeText(bytes);
  return parseCsvText(text, { ...options, path, encoding });
}

/** Parses CSV text (see readCsvFile); `path` only names the file in messages. */
export function parseCsvText(
  text: string,
  options: { separator?: CsvFile['separator']; what?: string; path?: string; encoding?: CsvFile['encoding'] } = {},
): CsvFile {
  const name = `${options.what ?? 'el archivo'}${options.path ? ` ${printable(options.path)}` : ''}`;
  // One line ending (files pasted together mix CRLF and LF): lines are then counted exactly.
  const body = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  if (body.trim() === '') throw new UsageError(`${name} está vacío`);
  const separator = options.separator ?? detectSeparator(body);
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(body, { delimiter: separator, record_delimiter: '\n', info: true, skip_empty_lines: true, relax_column_count: false, trim: true }) as never;
  } catch (err) {
    const e = err as { lines?: number; code?: string; message: string };
    const why =
      e.code === 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH'
        ? 'tiene otra cantidad de columnas que el encabezado'
        : e.code === 'CSV_QUOTE_NOT_CLOSED'
          ? 'abre comillas que no cierra'
          : e.code === 'CSV_INVALID_CLOSING_QUOTE'
            ? 'tiene comillas mal cerradas'
            : 'no se puede leer como CSV';
    throw new UsageError(`${name}, línea ${e.lines ?? '?'}: ${why}; no se usó nada del archivo`, separator === ';' ? undefined : 'si el separador es otro, indicalo con --separador ";"');
  }
  const [head, ...rest] = records;
  if (!head) throw new UsageError(`${name} está vacío`);
  const header = head.record.map((h) => h.trim());
  const seen = new Set<string>();
  for (const h of header) {
    if (h === '') throw new UsageError(`${name}: el encabezado tiene una columna sin nombre`);
    const key = h.toLowerCase();
    if (seen.has(key)) throw new UsageError(`${name}: la columna "${printable(h)}" está dos veces en el encabezado`);
    seen.add(key);
  }
  const rows = rest.map(({ record, info }) => ({
    // info.lines is the line the record ends on; a quoted field may span several.
    line: info.lines - record.reduce((n, cell) => n + (cell.match(/\n/g)?.length ?? 0), 0),
    cells: Object.fromEntries(header.map((h, i) => [h, record[i] ?? ''])),
  }));
  return { header, rows, separator, encoding: options.encoding ?? 'utf-8' };
}

/** The header's name for a column: the one `--columnas` gives, else the first candidate present (case and accents ignored). */
export function findColumn(file: CsvFile, candidates: readonly string[], given?: string): string | undefined {
  const fold = (s: string) => s.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase().trim();
  if (given !== undefined) return file.header.find((h) => fold(h) === fold(given));
  for (const c of candidates) {
    const found = file.header.find((h) => fold(h) === fold(c));
    if (found) return found;
  }
  return undefined;
}
