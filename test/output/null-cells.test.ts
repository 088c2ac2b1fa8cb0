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
    // ID CÓDIGO CONCEPTO MONTO COBRADO ESTADO REFERENCIA VENCE
    expect(row.split('\t')[6]).toBe('');
    expect(row.split('\t')).not.toContain('-');
    // A person at a terminal still reads a dash.
    const screen = (await svcOnTerminal(['cobro', 'listar'], sb.env, 120)).screen;
    expect(screen).toMatch(/\bPENDIENTE +- /);
  });

  it('cobro listar, transacciones, devoluciones and liquidaciones: the piped columns come in --csv’s order', async () => {
    const c = await sb.cobro({ concepto: 'Orden', monto: '30.00' });
    expect((await sb.api('POST', `/_sandbox/cobros/${c.id}/pagar`, {})).status).toBe(200);
    expect(
      (await sb.api('POST', `/v1/cobros/${c.id}/devoluciones`, { monto: '5.00' })).status,
    ).toBe(201);
    for (const args of [
      ['transacciones', 'listar'],
      ['devoluciones', 'listar'],
      ['liquidaciones'],
    ]) {
      const piped = (await svc(args, { env: sb.env })).stdout.trim().split('\n')[0]!.split('\t');
      const csv = (await svc([...args, '--csv'], { env: sb.env })).stdout
        .split('\r\n')[1]!
        .split(',');
      // Each piped cell is the next CSV field that holds it: the piped row is the CSV row with fields left out.
      let at = -1;
      for (const cell of piped) {
        const next = csv.findIndex((v, i) => i > at && v === cell);
        expect(
          next,
          `${args.join(' ')}: ${cell} after ${csv[at]} in ${csv.join(',')}`,
        ).toBeGreaterThan(at);
        at = next;
      }
    }
  });
});
