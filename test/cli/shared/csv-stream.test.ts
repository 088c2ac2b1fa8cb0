// Batch files are read as a stream (src/cli/shared/csv.ts readCsvRows): a row at a
// time reaches the command, which keeps a short record of it, so a batch of a hundred
// thousand rows is checked in a heap that the whole file's text, cells and records
// would not fit in; a line that does not parse stops the read where it stands; and the
// file is decoded as a whole file is (UTF-8, or Windows-1252 throughout) even when the
// bytes that are not UTF-8 come after UTF-8 text.
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  parseCsvText,
  readCsvFile,
  readCsvRows,
  type CsvRecord,
} from '../../../src/cli/shared/csv.js';
import { expectNoStack, svcSpawned, tempDir } from '../../helpers/cli.js';

/** A batch of `n` payment requests whose last row's amount reads two ways (1.500). */
function requestsEndingBad(n: number): string {
  const file = join(tempDir('svc-stream-'), 'cobros.csv');
  const rows = ['concepto,monto,referencia'];
  for (let i = 1; i < n; i++) rows.push(`Cuota,10.00,r-${i}`);
  rows.push(`Cuota,1.500,r-${n}`);
  writeFileSync(file, `${rows.join('\n')}\n`);
  return file;
}

/** Reads `text` (written to a file) as a batch: the header and every row handed over, and what the reader says. */
async function readAll(bytes: string | Buffer) {
  const file = join(tempDir('svc-stream-'), 'lote.csv');
  writeFileSync(file, bytes);
  const rows: CsvRecord[] = [];
  const headers: string[][] = [];
  const read = await readCsvRows(file, { what: '--lote' }, (head) => {
    headers.push(head.header);
    rows.length = 0;
    return (r) => rows.push({ line: r.line, values: [...r.values] });
  });
  return { read, rows, headers, file };
}

describe('a batch read as a stream', () => {
  it('80,000 rows are checked in a 40 MB heap, the last one refused naming its line', async () => {
    // Read whole (text, cells and a record per row at once) the same file needs well
    // over 100 MB: the process ran out of memory (SIGABRT) before it said anything.
    const file = requestsEndingBad(80_000);
    const r = await svcSpawned(['cobro', 'crear', '--lote', file, '--yes'], {
      env: { NODE_OPTIONS: '--max-old-space-size=40' },
      timeout: 120_000,
    });
    expect(r.exitCode, r.stderr.slice(-2000)).toBe(2);
    expect(r.stderr).toContain('línea 80001: monto "1.500" ');
    expect(r.stderr).toMatch(/1 fila no se puede crear \(línea 80001\): no se creó ningún cobro/);
    expectNoStack(r.stderr);
  }, 150_000);

  it('a line that does not parse stops the read there: no row after it is handed over', async () => {
    const tail = Array.from({ length: 50_000 }, (_, i) => `c,1,r${i}`).join('\n');
    const file = join(tempDir('svc-stream-'), 'lote.csv');
    writeFileSync(file, `concepto,monto,referencia\nc,1,a\nc,1\n${tail}\n`);
    const seen: number[] = [];
    await expect(
      readCsvRows(file, { what: '--lote' }, () => (r) => seen.push(r.line)),
    ).rejects.toThrow(/línea 3: tiene otra cantidad de columnas que el encabezado/);
    expect(seen).toEqual([2]);
  });

  it('rows as readCsvFile reads them: quoted newlines, CRLF, a BOM, ";" detected, blank lines', async () => {
    const text = '\uFEFFconcepto;monto\r\n"dos\r\nlíneas";1,50\r\n\r\nfin;2\r\n';
    const { read, rows } = await readAll(text);
    const whole = parseCsvText(text);
    expect(read).toMatchObject({ header: whole.header, separator: ';', rows: 2 });
    expect(
      rows.map((r) => ({ line: r.line, cells: { concepto: r.values[0], monto: r.values[1] } })),
    ).toEqual(whole.rows);
    expect(read.encoding).toBe('utf-8');
    expect(read.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('a CRLF split between two reads is one line end', async () => {
    // The reader takes 256 KiB at a time: the \r ends the first read, the \n starts the next.
    const head = 'concepto,monto\n';
    const filler = 'x'.repeat(256 * 1024 - head.length - 3);
    const { rows } = await readAll(`${head}${filler},1\r\nb,2\n`);
    expect(rows.map((r) => [r.line, r.values[1]])).toEqual([
      [2, '1'],
      [3, '2'],
    ]);
  });

  it('a character split between two reads is one character', async () => {
    const head = 'concepto,monto\n';
    // "ñ" is two bytes in UTF-8: the first ends the first 256 KiB read, the second starts the next.
    const filler = 'x'.repeat(256 * 1024 - head.length - 1);
    const { read, rows } = await readAll(`${head}${filler}ñ,1\n`);
    expect(read.encoding).toBe('utf-8');
    expect(rows).toEqual([{ line: 2, values: [`${filler}ñ`, '1'] }]);
  });

  it('a file that grows past 16 MiB while it is read is refused, naming it', async () => {
    const file = join(tempDir('svc-stream-'), 'lote.csv');
    writeFileSync(file, 'concepto,monto\na,1\n');
    const more = Buffer.alloc(17 * 1024 * 1024, '\n');
    await expect(
      readCsvRows(file, { what: '--lote' }, () => {
        // The header is read: what follows it grows while the rows are read.
        appendFileSync(file, more);
        return () => {};
      }),
    ).rejects.toThrow(
      /--lote .*lote\.csv: creció mientras se leía, a más de lo que svc lee \(16 MiB\)/,
    );
  });

  it('Windows-1252 from the first byte that is not UTF-8, when all before it was ASCII', async () => {
    const bytes = Buffer.concat([
      Buffer.from('concepto,monto\n'),
      Buffer.from(`${`${'a'.repeat(60)},1\n`.repeat(5_000)}`),
      Buffer.from([0x43, 0xf3, 0x64, 0x2c, 0x32, 0x0a]), // Cód,2 in Windows-1252
    ]);
    const { read, rows, headers, file } = await readAll(bytes);
    expect(read.encoding).toBe('windows-1252');
    expect(headers).toHaveLength(1);
    expect(rows.at(-1)).toEqual({ line: 5_002, values: ['Cód', '2'] });
    expect(readCsvFile(file, { encoding: 'auto' }).encoding).toBe('windows-1252');
  });

  it('UTF-8 text and then a byte that is not: the whole file is read again as Windows-1252, as read whole', async () => {
    const bytes = Buffer.concat([
      Buffer.from('concepto,monto\nAñil,1\n'),
      Buffer.from(`${`${'a'.repeat(60)},1\n`.repeat(5_000)}`),
      Buffer.from([0xf1, 0x2c, 0x32, 0x0a]), // ñ,2 in Windows-1252
    ]);
    const { read, rows, headers, file } = await readAll(bytes);
    const whole = readCsvFile(file, { encoding: 'auto' });
    expect(read.encoding).toBe('windows-1252');
    // The header was handed over twice: once as UTF-8, then again for the second read.
    expect(headers).toHaveLength(2);
    expect(rows).toHaveLength(whole.rows.length);
    expect(rows[0]!.values[0]).toBe(whole.rows[0]!.cells.concepto);
    expect(rows[0]!.values[0]).toBe('AÃ±il');
    expect(rows.at(-1)!.values[0]).toBe('ñ');
  });

  it('an empty or blank file is said to be empty', async () => {
    await expect(readAll('')).rejects.toThrow(/está vacío/);
    await expect(readAll(' \n\n \r\n')).rejects.toThrow(/está vacío/);
  });
});
