// CSV files from other programs (a spreadsheet's "Save as CSV"), read with csv-parse,
// never by splitting lines: quoted fields with commas, quotes and newlines, a UTF-8
// BOM (Excel writes one), `;` as the separator (where the decimal mark is a comma,
// Excel and LibreOffice use it) detected from the header or taken from --separador,
// CRLF or LF. A file that does not parse whole is refused naming the line: nothing
// is done from half a file.
import { readFileSync, statSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { UsageError } from '../../errors.js';
import { printable } from '../../text.js';

/** Largest CSV read: a batch of a few thousand rows is well under it. */
const MAX_CSV_BYTES = 16 * 1024 * 1024;

export interface CsvRow {
  /** The file's line where the row starts. */
  line: number;
  fields: Record<string, string>;
}

export interface CsvFile {
  header: string[];
  rows: CsvRow[];
  separator: string;
}

/** --separador: `,`, `;` or `tab`; undefined to detect it. */
export function parseSeparator(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const v = String(value);
  if (v === ',' || v === ';') return v;
  if (v === 'tab' || v === '\t') return '\t';
  throw new UsageError(`--separador "${printable(v)}": se espera , ; o tab`);
}

/** The separator of a header line: the one of `;`, `,` and tab that appears most outside quotes. */
function detect(text: string): string {
  let inQuotes = false;
  const seen: Record<string, number> = { ',': 0, ';': 0, '\t': 0 };
  for (const ch of text) {
    if (ch === '"') inQuotes = !inQuotes;
    else if (!inQuotes && (ch === '\n' || ch === '\r')) break;
    else if (!inQuotes && ch in seen) seen[ch]!++;
  }
  return seen[';']! > seen[',']! && seen[';']! >= seen['\t']! ? ';' : seen['\t']! > seen[',']! ? '\t' : ',';
}

/**
 * Reads `path` whole: header names trimmed and lower-cased, each row a record of
 * them. UsageError (exit 2) naming the file and line for anything that cannot be read.
 */
export function readCsv(path: string, flag: string, separator?: string): CsvFile {
  let text: string;
  try {
    const st = statSync(path);
    if (!st.isFile()) throw new UsageError(`${flag} "${printable(path)}": no es un archivo`);
    if (st.size > MAX_CSV_BYTES) throw new UsageError(`${flag} "${printable(path)}": ${st.size} bytes, más de lo que svc lee (16 MiB)`);
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if (err instanceof UsageError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(`${flag} "${printable(path)}": ${code === 'ENOENT' ? 'no existe' : code === 'EACCES' ? 'sin permiso de lectura' : (err as Error).message}`);
  }
  if (text.includes('\uFFFD')) {
    const line = text.slice(0, text.indexOf('\uFFFD')).split('\n').length;
    throw new UsageError(`${flag} ${printable(path)} línea ${line}: no es UTF-8 (guardalo como "CSV UTF-8")`);
  }
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const sep = separator ?? detect(body);
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(body, { delimiter: sep, relax_column_count: false, skip_empty_lines: true, info: true, trim: false }) as never;
  } catch (err) {
    const e = err as { lines?: number; message: string; code?: string };
    const why =
      e.code === 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH'
        ? 'no tiene tantas columnas como el encabezado'
        : e.code === 'CSV_QUOTE_NOT_CLOSED'
          ? 'una comilla que no se cierra'
          : e.code === 'CSV_INVALID_CLOSING_QUOTE' || e.code === 'CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE'
            ? 'algo después de cerrar comillas'
            : e.message.replace(/\s+/g, ' ');
    throw new UsageError(`${flag} ${printable(path)} línea ${e.lines ?? '?'}: ${why}; no se hizo nada`);
  }
  if (records.length === 0) throw new UsageError(`${flag} ${printable(path)}: está vacío (se espera un encabezado y una fila por línea)`);
  const header = records[0]!.record.map((h) => h.trim().toLowerCase());
  const dup = header.find((h, i) => header.indexOf(h) !== i);
  if (dup !== undefined) throw new UsageError(`${flag} ${printable(path)} línea 1: la columna "${printable(dup)}" está dos veces`);
  // csv-parse counts the line after a record's end: a record starts where the one before it left off.
  const rows = records.slice(1).map(({ record }, i) => ({
    line: records[i]!.info.lines,
    fields: Object.fromEntries(header.map((h, j) => [h, record[j]!.trim()])),
  }));
  return { header, rows, separator: sep };
}
