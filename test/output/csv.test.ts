// --csv on the list commands (RFC 4180: a header row, CRLF, quotes where needed):
// parsed back, every row is the service's item (amounts as its decimal strings,
// dates as sent, null as an empty field, nested fields as medios.tarjeta).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvField } from '../../src/output/format.js';
import { tempDir, svcSpawned } from '../helpers/cli.js';
import { svc } from '../helpers/inproc.js';
import { startSandbox, type Sandbox } from '../helpers/sandbox.js';

/** An RFC 4180 reader, written here so the test does not trust the writer. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') ((field += '"'), i++);
      else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') (row.push(field), (field = ''));
    else if (ch === '\r' && text[i + 1] === '\n')
      (row.push(field), rows.push(row), (row = []), (field = ''), i++);
    else field += ch;
  }
  expect(field + row.join('')).toBe('');
  return rows;
}

const asText = (v: unknown) => (v === null ? '' : String(v));
/** A value as a spreadsheet-safe cell (written here, not taken from svc): a formula start that is not a number gets a leading '. */
const asCell = (v: unknown) => {
  const text = asText(v);
  return /^[=+\-@\t\r]/.test(text) && !/^[+-]?\d+(\.\d+)?$/.test(text) ? `'${text}` : text;
};
const HYPERLINK = '=HYPERLINK("http://evil.example/x","Pagá acá")';

let sb: Sandbox;
let unpaid: number;
beforeAll(async () => {
  // Ready at once: a request whose cvu appeared between svc's read and the test's own would differ.
  sb = await startSandbox();
  await sb.api('POST', '/v1/cobros', {
    concepto: 'Coma, "comillas" y\nsalto',
    monto: '10.50',
    referencia: 'r-1',
  });
  const c = (await sb.api('POST', '/v1/cobros', { concepto: 'Normal', monto: '99.99', qr: false }))
    .body.data;
  await sb.api('POST', `/_sandbox/cobros/${c.id}/pagar`, { medio: 'debito' });
  unpaid = (
    await sb.api('POST', '/v1/cobros', {
      concepto: HYPERLINK,
      monto: '5.00',
      referencia: '@SUM(1+1)',
    })
  ).body.data.id;
});
afterAll(() => sb?.stop());

describe('--csv', () => {
  it('cobro listar: header of field names, then each request as the service sent it', async () => {
    const r = await svcSpawned(['cobro', 'listar', '--csv'], { env: sb.env });
    expect(r.exitCode, r.stderr).toBe(0);
    const [header, ...rows] = parseCsv(r.stdout);
    expect(header).toContain('medios.tarjeta');
    const items = (await sb.api('GET', '/v1/cobros')).body.data as Record<string, unknown>[];
    expect(rows).toHaveLength(items.length);
    for (const [i, item] of items.entries()) {
      for (const [k, v] of Object.entries(item)) {
        if (v !== null && typeof v === 'object')
          for (const [k2, v2] of Object.entries(v))
            expect(rows[i]![header!.indexOf(`${k}.${k2}`)]).toBe(asText(v2));
        else expect(rows[i]![header!.indexOf(k)], k).toBe(asCell(v));
      }
    }
  });

  it.each([['transacciones', 'listar'], ['devoluciones', 'listar'], ['liquidaciones']])(
    'svc %s %s --csv parses back to the --json items',
    async (...args) => {
      const cmd = args.filter(Boolean) as string[];
      const csv = await svc([...cmd, '--csv'], { env: sb.env });
      const json = JSON.parse((await svc([...cmd, '--json'], { env: sb.env })).stdout) as Record<
        string,
        unknown
      >[];
      const [header, ...rows] = csv.stdout ? parseCsv(csv.stdout) : [[]];
      expect(rows.map((r) => Object.fromEntries(r.map((v, i) => [header![i], v])))).toEqual(
        json.map((o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, asText(v)]))),
      );
    },
  );

  it('with --json, or on a command that is not a list: exit 2', async () => {
    expect((await svc(['cobro', 'listar', '--csv', '--json'], { env: sb.env })).exitCode).toBe(2);
    const r = await svc(['cuenta', '--csv'], { env: sb.env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--csv es para las listas/);
  });

  it('a cell a spreadsheet would run as a formula gets a leading quote, piped too; plain numbers stay', async () => {
    const r = await svc(['cobro', 'listar', '--csv'], { env: sb.env });
    expect(r.exitCode, r.stderr).toBe(0);
    const [header, ...rows] = parseCsv(r.stdout);
    const row = rows.find((x) => x[header!.indexOf('concepto')]!.includes('HYPERLINK'))!;
    expect(row[header!.indexOf('concepto')]).toBe(`'${HYPERLINK}`);
    expect(row[header!.indexOf('referencia')]).toBe("'@SUM(1+1)");
    expect(row[header!.indexOf('monto')]).toBe('5.00');
    expect(csvField('-5.00')).toBe('-5.00');
    expect(csvField('+1')).toBe('+1');
    expect(csvField('-')).toBe("'-");
    expect(csvField('+54 11 5555')).toBe("'+54 11 5555");
    expect(csvField('\tx')).toBe("'\tx");
    expect(csvField('\r=1+1')).toBe(`"'\r=1+1"`);
    expect(csvField('a=1')).toBe('a=1');
  });

  it('ESC, BEL, NUL, C1 and bidi overrides are written as escapes in every CSV cell, piped too; line breaks and tabs stay', () => {
    expect(csvField('a\u001b[2Jb\u0007c\u0000d\u009be\u202ef')).not.toMatch(
      /[\u0000\u0007\u001b\u009b\u202e]/,
    );
    expect(csvField('a\u001bb')).toBe('a\\u001bb');
    expect(csvField('línea 1\nlínea 2\tfin')).toBe('"línea 1\nlínea 2\tfin"');
  });

  it('an empty list is still its header row', async () => {
    const full = parseCsv((await svc(['cobro', 'listar', '--csv'], { env: sb.env })).stdout)[0];
    const empty = await svc(['cobro', 'listar', '--csv', '--estado', 'CANCELADO'], { env: sb.env });
    expect(empty.exitCode, empty.stderr).toBe(0);
    expect(parseCsv(empty.stdout)).toEqual([full]);
    const refunds = await svc(['devoluciones', 'listar', '--csv'], { env: sb.env });
    expect(parseCsv(refunds.stdout)).toEqual([
      ['id', 'cobro_id', 'monto', 'tipo', 'estado', 'created_at'],
    ]);
    for (const cmd of [
      ['transacciones', 'listar', '--medio', 'transferencia'],
      ['liquidaciones', '--cobro', String(unpaid)],
      ['liquidaciones', '--cobro', String(unpaid), '--por-fecha'],
    ]) {
      const r = await svc([...cmd, '--csv'], { env: sb.env });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(parseCsv(r.stdout), cmd.join(' ')).toHaveLength(1);
    }
  });

  describe('webhook eventos --csv', () => {
    const FIELDS = [
      'id',
      'received_at',
      'source',
      'replay_of',
      'event',
      'cobro_id',
      'estado',
      'monto',
      'verification.valid',
      'verification.reason',
      'outcome',
      'target',
      'status',
      'answered',
      'latency_ms',
      'error',
    ];
    const entry = (id: string, extra: Record<string, unknown>) => ({
      id,
      received_at: '2026-01-01T12:00:00.000Z',
      source: 'listen',
      method: 'POST',
      path: '/',
      headers: { 'x-svc-signature': 'sha256=00' },
      body: '',
      body_encoding: 'utf8',
      bytes: 0,
      event: 'payment.approved',
      cobro_id: 1,
      estado: 'PAGADA',
      monto: '10.00',
      verification: { valid: true },
      outcome: 'received',
      target: null,
      status: null,
      answered: 200,
      latency_ms: null,
      ...extra,
    });
    const journal = (...entries: object[]) => {
      const path = join(tempDir('svc-csv-j-'), 'webhooks.jsonl');
      writeFileSync(path, entries.map((e) => `${JSON.stringify(e)}\n`).join(''));
      return path;
    };

    it('one header for every entry, named as in --json; an empty journal is its header', async () => {
      const path = journal(
        entry('evt_a', {}),
        // An unsigned stranger's post, kept with other headers and fields of its own.
        entry('evt_b', {
          headers: { 'content-type': 'text/plain' },
          verification: { valid: false, reason: 'sin_firma' },
          outcome: 'rejected',
          answered: 401,
          event: '@SUM(1+1)',
          body_truncated: true,
        }),
      );
      const r = await svc(['webhook', 'eventos', '--journal', path, '--csv']);
      expect(r.exitCode, r.stderr).toBe(0);
      const [header, ...rows] = parseCsv(r.stdout);
      expect(header).toEqual(FIELDS);
      expect(rows.map((x) => x.length)).toEqual([FIELDS.length, FIELDS.length]);
      // Newest first; the stranger's event neutralised for the spreadsheet.
      expect(rows[0]!.slice(0, 1).concat(rows[0]![4]!, rows[0]![8]!, rows[0]![9]!)).toEqual([
        'evt_b',
        "'@SUM(1+1)",
        'false',
        'sin_firma',
      ]);
      const empty = await svc(['webhook', 'eventos', '--journal', journal(), '--csv']);
      expect(empty.exitCode, empty.stderr).toBe(0);
      expect(parseCsv(empty.stdout)).toEqual([FIELDS]);
    });

    it("a stranger's escape sequences are written escaped: on a terminal as in the table, piped too (the file is read later with cat)", async () => {
      const event = 'x\u001b[2J\u001b]0;pwned\u0007';
      const path = journal(
        entry('evt_c', {
          event,
          verification: { valid: false, reason: 'sin_firma' },
          outcome: 'rejected',
        }),
      );
      const tty = await svc(['webhook', 'eventos', '--journal', path, '--csv'], {
        env: { SVC_FORCE_TTY: '1' },
      });
      expect(tty.exitCode, tty.stderr).toBe(0);
      expect(tty.stdout).not.toMatch(/[\u0000-\u0009\u000b\u000c\u000e-\u001f\u007f]/);
      expect(parseCsv(tty.stdout)[1]![4]).toBe(String.raw`"x\u001b[2J\u001b]0;pwned\u0007"`);
      const piped = await svc(['webhook', 'eventos', '--journal', path, '--csv']);
      expect(piped.stdout).not.toMatch(/[\u0000-\u0009\u000b\u000c\u000e-\u001f\u007f]/);
      expect(parseCsv(piped.stdout)[1]![4]).toBe(String.raw`x\u001b[2J\u001b]0;pwned\u0007`);
    });
  });

  it('quotes what RFC 4180 needs quoted', () => {
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('di "hola"')).toBe('"di ""hola"""');
    expect(csvField('dos\nlíneas')).toBe('"dos\nlíneas"');
    expect(csvField(' borde')).toBe('" borde"');
    expect(csvField(null)).toBe('');
    expect(csvField('1500.00')).toBe('1500.00');
  });
});
