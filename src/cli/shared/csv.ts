// CSV files other programs wrote (a bank's statement, a batch a spreadsheet saved),
// read with csv-parse, never by splitting lines: quoted fields with commas, quotes and
// newlines, a UTF-8 byte-order mark (Excel writes one), CRLF or LF, `;` as the
// separator where the decimal mark is a comma (detected from the header, or
// --separador), and, where the caller allows it, the Windows-1252 text Excel still
// writes on Spanish-language Windows. A file that does not parse whole is refused
// naming its line: nothing is done from half a file.
// - readCsvFile: a bank's statement, read whole (a year of one is a few thousand rows);
// - readCsvRows: a batch, read as a stream: a row at a time goes to the caller, which
//   keeps what it needs of it, so a million rows never sit in memory as text, cells and
//   records at once, and a line that does not parse stops the read where it stands.
// Every CSV svc reads (refund batches, payment-request batches, bank statements)
// comes through here, so a quirk fixed once is fixed for all of them.
import { isAscii } from 'node:buffer';
import { createHash } from 'node:crypto';
import { closeSync, readFileSync, readSync, statSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { CsvError, parse as parseStream, type Info } from 'csv-parse';
import { parse } from 'csv-parse/sync';
import { openRegularFile } from '../../durable.js';
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
export function encodingNote(
  file: { encoding: CsvFile['encoding'] },
  what: string,
): string | undefined {
  return file.encoding === 'windows-1252'
    ? `${what}: no es UTF-8; se leyó como Windows-1252 (el "CSV" de Excel en Windows)`
    : undefined;
}

/** The file at `path` opened for reading (a regular file, under the cap), or a UsageError naming it. */
function openCsv(path: string, name: string): { fd: number; size: number } {
  let file: { fd: number; size: number };
  try {
    // Through a link, as a spreadsheet's shortcut is; never a FIFO, a device or a folder.
    file = openRegularFile(path, true);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    let why: string;
    if (code === 'ENOTREG') {
      let folder = false;
      try {
        folder = statSync(path).isDirectory();
      } catch {
        // gone since: it was not a file
      }
      why = folder ? 'es una carpeta' : 'no es un archivo';
    } else
      why =
        code === 'ENOENT'
          ? 'no existe'
          : code === 'EACCES'
            ? 'sin permiso de lectura'
            : (err as Error).message;
    throw new UsageError(`${name}: ${why}`);
  }
  if (file.size > MAX_CSV_BYTES) {
    closeSync(file.fd);
    throw new UsageError(`${name}: ${file.size} bytes, más de lo que svc lee (16 MiB)`);
  }
  return file;
}

/** Reads and parses `path` whole; a UsageError (exit 2) naming the file (and line) when it cannot. */
export function readCsvFile(path: string, options: CsvOptions = {}): CsvFile {
  const name = `${options.what ?? 'el archivo'} ${printable(path)}`;
  const { fd } = openCsv(path, name);
  let bytes: Buffer;
  try {
    bytes = readFileSync(fd);
  } finally {
    closeSync(fd);
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

/** csv-parse's options for a file of `separator`, LF line ends (made so before parsing). */
function parseOptions(separator: Separator) {
  return {
    delimiter: separator,
    record_delimiter: '\n',
    info: true,
    skip_empty_lines: true,
    relax_column_count: false,
    trim: true,
  } as const;
}

/** csv-parse's refusal as one line naming the file's line, with the --separador hint. */
function parseProblem(name: string, err: unknown, separator: Separator): UsageError {
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
  return new UsageError(
    `${name}, línea ${e.lines ?? '?'}: ${why}; no se usó nada del archivo`,
    separator === ';' ? undefined : 'si el separador es otro, indicalo con --separador ";"',
  );
}

/** The header's names, refused (line 1) when one is empty or written twice. */
function checkHeader(name: string, record: string[]): string[] {
  const header = record.map((h) => h.trim());
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
  return header;
}

/** The line a record starts on: info.lines is the one it ends on, and a quoted field may span several. */
function startLine(record: string[], info: Info): number {
  return info.lines - record.reduce((n, cell) => n + (cell.match(/\n/g)?.length ?? 0), 0);
}

const emptyFile = (name: string) =>
  new UsageError(`${name} está vacío (se espera un encabezado y una fila por línea)`);

/** Parses CSV text (see readCsvFile); `path` only names the file in messages. */
export function parseCsvText(
  text: string,
  options: CsvOptions & { path?: string; decoded?: CsvFile['encoding'] } = {},
): CsvFile {
  const name = `${options.what ?? 'el archivo'}${options.path ? ` ${printable(options.path)}` : ''}`;
  // One line ending (files pasted together mix CRLF and LF): lines are then counted exactly.
  const body = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  if (body.trim() === '') throw emptyFile(name);
  const separator = options.separator ?? detectSeparator(body);
  let records: { record: string[]; info: Info }[];
  try {
    records = parse(body, parseOptions(separator)) as never;
  } catch (err) {
    throw parseProblem(name, err, separator);
  }
  const [head, ...rest] = records;
  if (!head) throw emptyFile(name);
  const header = checkHeader(name, head.record);
  const rows = rest.map(({ record, info }) => ({
    line: startLine(record, info),
    cells: Object.fromEntries(header.map((h, i) => [h, record[i] ?? ''])),
  }));
  return { header, rows, separator, encoding: options.decoded ?? 'utf-8' };
}

/** A batch file's first line as read: its column names, and the separator. */
export interface CsvHead {
  header: string[];
  separator: Separator;
}

/** One row of a batch as read: the line it starts on (1 is the header) and its cells in the header's order, trimmed. */
export interface CsvRecord {
  line: number;
  values: string[];
}

/** What readCsvRows read: the head, its rows, how its bytes were decoded and their digest. */
export interface CsvRead extends CsvHead {
  rows: number;
  encoding: CsvFile['encoding'];
  /** `sha256:…` of the bytes read: the batch exactly as its rows were taken. */
  digest: string;
}

/** Bytes read from a batch at a time: what is in memory of its text at any moment. */
const READ_BYTES = 256 * 1024;

/** Thrown inside a read that met a byte that is not UTF-8 after UTF-8 text: read again as Windows-1252. */
class NotUtf8 extends Error {}

/** Thrown inside a read of a file that grew past MAX_CSV_BYTES after it was opened. */
class TooLarge extends Error {}

/**
 * A file's text piece by piece, with one line ending (\n) and no byte-order mark:
 * UTF-8 while it is UTF-8. Bytes that are not switch it to Windows-1252, as a whole
 * file is read (decodeText): from where they stand when all before them was ASCII
 * (read the same either way), else NotUtf8 and the file is read again from the start.
 */
class TextPieces {
  encoding: CsvFile['encoding'];
  private readonly hash = createHash('sha256');
  private readonly utf8 = new TextDecoder('utf-8', { fatal: true });
  private readonly cp1252 = new TextDecoder('windows-1252');
  private readonly buf = Buffer.alloc(READ_BYTES);
  private at = 0;
  private ascii = true;
  private first = true;
  private cr = false;
  private done = false;

  constructor(
    private readonly fd: number,
    encoding: CsvFile['encoding'],
  ) {
    this.encoding = encoding;
  }

  digest(): string {
    return `sha256:${this.hash.digest('hex')}`;
  }

  /** The next piece of text ('' when a piece was only a held \r), undefined at the end. */
  next(): string | undefined {
    if (this.done) return undefined;
    const n = readSync(this.fd, this.buf, 0, READ_BYTES, this.at);
    this.at += n;
    // Checked when opened; a file that grows while it is read stops at the same cap.
    if (this.at > MAX_CSV_BYTES) throw new TooLarge();
    const bytes = this.buf.subarray(0, n);
    this.hash.update(bytes);
    const end = n === 0;
    let text = this.decode(bytes, end);
    if (this.first) {
      text = text.replace(/^\uFEFF/, '');
      this.first = false;
    }
    // A \r at a piece's end may be half of a \r\n: held for the next piece.
    if (this.cr) text = `\r${text}`;
    this.cr = !end && text.endsWith('\r');
    if (this.cr) text = text.slice(0, -1);
    if (end) this.done = true;
    return end && text === '' ? undefined : text.replace(/\r\n?/g, '\n');
  }

  private decode(bytes: Buffer, end: boolean): string {
    if (this.encoding === 'windows-1252') return this.cp1252.decode(bytes);
    try {
      const text = this.utf8.decode(bytes, { stream: !end });
      if (this.ascii && !isAscii(bytes)) this.ascii = false;
      return text;
    } catch {
      if (!this.ascii) throw new NotUtf8();
      this.encoding = 'windows-1252';
      return this.cp1252.decode(bytes);
    }
  }
}

/** Finds the end of the first line (a line end outside quotes) across pieces of text. */
class FirstLine {
  private quoted = false;
  read = false;

  /** Looks at the next piece; true once the first line has ended. */
  see(text: string): boolean {
    for (let i = 0; i < text.length && !this.read; i++) {
      const ch = text[i];
      if (ch === '"') this.quoted = !this.quoted;
      else if (!this.quoted && ch === '\n') this.read = true;
    }
    return this.read;
  }
}

/**
 * Reads the batch at `path` as a stream, with every check readCsvFile makes (in
 * Windows-1252 when its bytes are not UTF-8), at most READ_BYTES of its text held at a
 * time. `begin` gets the header once it is read and gives back what to do with each
 * row, called once per row as it is read; a line that does not parse stops the read
 * there (UsageError naming it), as does anything `begin` or a row throws. `begin` is
 * called again, the rows given again from the first, when the file turns out not to
 * be UTF-8 after text that was: whatever it keeps, it keeps anew.
 */
export async function readCsvRows(
  path: string,
  options: { what?: string; separator?: Separator },
  begin: (head: CsvHead) => (row: CsvRecord) => void,
): Promise<CsvRead> {
  const name = `${options.what ?? 'el archivo'} ${printable(path)}`;
  const { fd } = openCsv(path, name);
  try {
    try {
      return await readRows(fd, name, options.separator, 'utf-8', begin);
    } catch (err) {
      if (!(err instanceof NotUtf8)) throw err;
      return await readRows(fd, name, options.separator, 'windows-1252', begin);
    }
  } catch (err) {
    if (err instanceof TooLarge)
      throw new UsageError(`${name}: creció mientras se leía, a más de lo que svc lee (16 MiB)`);
    throw err;
  } finally {
    closeSync(fd);
  }
}

async function readRows(
  fd: number,
  name: string,
  given: Separator | undefined,
  encoding: CsvFile['encoding'],
  begin: (head: CsvHead) => (row: CsvRecord) => void,
): Promise<CsvRead> {
  const pieces = new TextPieces(fd, encoding);
  // The first line whole, for its separator; and whether there is any text at all.
  let start = '';
  const first = new FirstLine();
  let text = false;
  for (let piece = pieces.next(); piece !== undefined; piece = pieces.next()) {
    start += piece;
    text ||= piece.trim() !== '';
    if (first.see(piece) && text) break;
  }
  if (!text) throw emptyFile(name);
  const separator = given ?? detectSeparator(start);
  let head: CsvHead | undefined;
  let onRow: ((row: CsvRecord) => void) | undefined;
  let rows = 0;
  // Each record is handled inside the parser as it completes (on_record) and dropped
  // there: nothing of it waits in a stream's buffer, so what a row leaves behind dies young.
  const parser = parseStream({
    ...parseOptions(separator),
    info: false,
    on_record: (record: string[], info: Info) => {
      if (!onRow) {
        head = { header: checkHeader(name, record), separator };
        onRow = begin(head);
      } else {
        rows++;
        onRow({ line: startLine(record, info), values: record });
      }
      return null;
    },
  });
  try {
    await pipeline(
      function* () {
        yield start;
        for (let piece = pieces.next(); piece !== undefined; piece = pieces.next()) yield piece;
      },
      parser,
      async function (nothing: AsyncIterable<unknown>) {
        for await (const _ of nothing);
      },
    );
  } catch (err) {
    throw err instanceof CsvError ? parseProblem(name, err, separator) : err;
  }
  if (!head) throw emptyFile(name);
  return { ...head, rows, encoding: pieces.encoding, digest: pieces.digest() };
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
  file: { header: string[] },
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
 * accents, as their places in the header: refuses a file that lacks a required column.
 * Columns svc does not know are left out of the batch and passed to `ignored`, which
 * says so (a typo of `motivo` is then seen, not silently dropped); without `ignored`
 * they are refused.
 */
export function batchColumns<C extends string>(
  file: { header: string[] },
  what: string,
  known: readonly C[],
  required: readonly C[],
  ignored?: (line: string) => void,
): Partial<Record<C, number>> {
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
  const at: Partial<Record<C, number>> = {};
  for (const c of known) if (names[c] !== undefined) at[c] = file.header.indexOf(names[c]);
  return at;
}
