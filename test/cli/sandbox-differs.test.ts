// `svc sandbox --campos-extra --fechas-con-zona --estados-nuevos`: the sandbox answers as
// a real service may within the seed (fields it does not show, dates with an offset, a
// state or medio it does not list), and svc keeps working: it shows what was sent, marks
// what it does not know, and decides nothing from a state it does not know.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cobro } from '../../src/api/schemas.js';
import { svc } from '../helpers/inproc.js';
import { startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';

let sb: InProcessSandbox;

beforeAll(async () => {
  sb = await startSandbox({
    latitude: { extraFields: true, newStates: true },
    uncheckedReplies: true,
  });
  for (const monto of ['100.00', '200.00', '300.00']) {
    const c = (await sb.api('POST', '/v1/cobros', { concepto: `Orden ${monto}`, monto })).body
      .data as Cobro;
    expect((await sb.api('POST', `/_sandbox/cobros/${c.id}/pagar`, { medio: 'qr' })).status).toBe(
      200,
    );
  }
});
afterAll(() => sb?.stop());

const run = (args: string[]) => svc(args, { env: sb.env });

describe('svc sandbox with its latitudes: svc against a service that differs within the seed', () => {
  it('the flags reach the sandbox: extra fields, UTC dates on odd ids, new states on multiples of 3', async () => {
    const own = await startSandbox({
      argv: ['--campos-extra', '--fechas-con-zona', '--estados-nuevos'],
    });
    try {
      for (const monto of ['1.00', '2.00', '3.00'])
        expect(
          (await svc(['cobro', 'crear', '--concepto', 'x', '--monto', monto], { env: own.env }))
            .exitCode,
        ).toBe(0);
      const one = await svc(['cobro', 'ver', '1', '--json'], { env: own.env });
      expect(one.exitCode, one.stderr).toBe(0);
      const sent = JSON.parse(one.stdout) as Record<string, unknown>;
      expect(sent.canal).toBe('api');
      expect(sent.metadatos).toEqual({ origen: 'sandbox', version: 2 });
      expect(sent.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
      const two = JSON.parse((await svc(['cobro', 'ver', '2', '--json'], { env: own.env })).stdout);
      expect(two.created_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      const three = await svc(['cobro', 'ver', '3'], { env: own.env });
      expect(three.stdout).toMatch(/^estado\tEN_REVISION \(\?\)$/m);
      // Shown in the service's zone: no offset left in what a person reads.
      const list = await svc(['cobro', 'listar'], { env: own.env });
      expect(list.exitCode, list.stderr).toBe(0);
      expect(list.stdout).not.toMatch(/\d{2}:\d{2}:\d{2}Z/);
    } finally {
      await own.stop();
    }
  });

  it.each([
    ['cobro', 'listar'],
    ['transacciones', 'listar'],
    ['devoluciones', 'listar'],
    ['liquidaciones'],
    ['liquidaciones', '--por-fecha'],
    ['caso', '1'],
    ['cobro', 'ver', '2'],
  ])('svc %s … reads records with extra fields and unlisted states (exit 0)', async (...args) => {
    const r = await run(args);
    expect(r.exitCode, r.stderr).toBe(0);
  });

  it('an unlisted state or medio is shown as sent, marked (?)', async () => {
    const tx = await run(['transacciones', 'listar']);
    expect(tx.stdout).toMatch(
      /^3\t3\tbilletera \(\?\)\t300\.00\t[^\t]*\t[^\t]*\tEN_DISPUTA \(\?\)\t/m,
    );
    const liq = await run(['liquidaciones']);
    expect(liq.stdout).toMatch(/\tretenido \(\?\)$/m);
    const json = await run(['cobro', 'ver', '3', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ estado: 'EN_REVISION', canal: 'api' });
  });

  it('a request in an unlisted state is never taken as refundable: nothing is sent, exit 2', async () => {
    for (const args of [
      ['devolver', '3', '--monto', '1.00', '--yes'],
      ['devolver', '3', '--total', '--dry-run'],
    ]) {
      const r = await run(args);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain('"EN_REVISION", un estado que svc no conoce');
    }
    expect((await sb.api('GET', '/v1/devoluciones')).body.data).toEqual([]);
  });
});
