// --csv on the list commands (RFC 4180: a header row, CRLF, quotes where needed):
// parsed back, every row is the service's item (amounts as its decimal strings,
// dates as sent, null as an empty field, nested fields as medios.tarjeta).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvField } from '../../src/output/format.js';
import { svc as spawned } from '../helpers/cli.js';
import { svcInProcess as svc } from '../helpers/inproc.js';
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
      if (ch === '"' && text[i + 1] === '"') (field += '"'), i++;
      else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') row.push(field), (field = '');
    else if (ch === '\r' && text[i + 1] === '\n') row.push(field), rows.push(row), (row = []), (field = ''), i++;
    else field += ch;
  }
  expect(field + row.join('')).toBe('');
  return rows;
}

const asText = (v: unknown) => (v === null ? '' : String(v));

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
  await sb.api('POST', '/v1/cobros', { concepto: 'Coma, "comillas" y\nsalto', monto: '10.50', referencia: 'r-1' });
  const c = (await sb.api('POST', '/v1/cobros', { concepto: 'Normal', monto: '99.99', qr: false })).body.data;
  await sb.api('POST', `/_sandbox/cobros/${c.id}/pagar`, { medio: 'debito' });
});
afterAll(() => sb?.stop());

describe('--csv', () => {
  it('cobro listar: header of field names, then each request as the service sent it', async () => {
    const r = await spawned(['cobro', 'listar', '--csv'], { env: sb.env });
    expect(r.exitCode, r.stderr).toBe(0);
    const [header, ...rows] = parseCsv(r.stdout);
    expect(header).toContain('medios.tarjeta');
    const items = (await sb.api('GET', '/v1/cobros')).body.data as Record<string, unknown>[];
    expect(rows).toHaveLength(items.length);
    for (const [i, item] of items.entries()) {
      for (const [k, v] of Object.entries(item)) {
        if (v !== null && typeof v === 'object') for (const [k2, v2] of Object.entries(v)) expect(rows[i]![header!.indexOf(`${k}.${k2}`)]).toBe(asText(v2));
        else expect(rows[i]![header!.indexOf(k)], k).toBe(asText(v));
      }
    }
  });

  it.each([['transacciones', 'listar'], ['devoluciones', 'listar'], ['liquidaciones']])('svc %s %s --csv parses back to the --json items', async (...args) => {
    const cmd = args.filter(Boolean) as string[];
    const csv = await svc([...cmd, '--csv'], { env: sb.env });
    const json = JSON.parse((await svc([...cmd, '--json'], { env: sb.env })).stdout) as Record<string, unknown>[];
    const [header, ...rows] = csv.stdout ? parseCsv(csv.stdout) : [[]];
    expect(rows.map((r) => Object.fromEntries(r.map((v, i) => [header![i], v])))).toEqual(json.map((o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, asText(v)]))));
  });

  it('with --json, or on a command that is not a list: exit 2', async () => {
    expect((await svc(['cobro', 'listar', '--csv', '--json'], { env: sb.env })).exitCode).toBe(2);
    const r = await svc(['cuenta', '--csv'], { env: sb.env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--csv es para las listas/);
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
