// A null reads the same piped and in --csv: an empty field. On a terminal it is `-`,
// which a person reads; a script splitting the TSV gets what --csv gives it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svc, svcOnTerminal } from '../helpers/inproc.js';
import { startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';

let sb: InProcessSandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb?.close());

describe('a null in piped rows and in --csv', () => {
  it('cobro listar: a request without referencia or vencimiento has empty fields in both', async () => {
    const c = await sb.cobro({ concepto: 'Sin referencia', monto: '10.00' });
    expect(c.referencia).toBeNull();
    const piped = await svc(['cobro', 'listar'], { env: sb.env });
    const row = piped.stdout.split('\n').find((l) => l.startsWith(`${c.id}\t`))!;
    const csv = await svc(['cobro', 'listar', '--csv'], { env: sb.env });
    const [header, ...rows] = csv.stdout.trim().split('\r\n');
    const fields = header!.split(',');
    const csvRow = rows.find((l) => l.startsWith(`${c.id},`))!.split(',');
    expect(csvRow[fields.indexOf('referencia')]).toBe('');
    // ID CÓDIGO ESTADO MONTO COBRADO CONCEPTO REFERENCIA VENCE
    expect(row.split('\t')[6]).toBe('');
    expect(row.split('\t')).not.toContain('-');
    // A person at a terminal still reads a dash.
    const screen = (await svcOnTerminal(['cobro', 'listar'], sb.env, 120)).screen;
    expect(screen).toMatch(new RegExp(`\\bSin referencia +- `));
  });
});
