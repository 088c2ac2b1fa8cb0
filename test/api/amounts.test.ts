// Odd amounts from a server, endpoint by endpoint (in-process, one main() per case):
// every amount field of every reply is checked as money.ts reads amounts, so
// "10.001", "-5.00", "1e3" or " 5.00" is not the service's JSON (exit 6) wherever it
// comes (but for "10.001" as one row of a list: shown marked, inexact-rows.test.ts), and a refund whose reply carries one may or may not have been made. A fee
// percentage has up to four decimals, so there "3.25001" is the odd one.
import { beforeAll, describe, expect, it } from 'vitest';
import { expectNoStack } from '../helpers/cli.js';
import type { InProcessSandbox } from '../helpers/sandbox.js';
import { faultSandbox, lines, type Fixture } from '../helpers/fixtures.js';
import { svc } from '../helpers/inproc.js';

let sb: InProcessSandbox;
let fx: Fixture;
const real: Record<string, any> = {};

faultSandbox((s, f) => ((sb = s), (fx = f)));
beforeAll(async () => {
  // Liquidaciones come from credited transactions.
  const get = async (path: string) => (await sb.api('GET', path)).body.data;
  real.cobro = await get(`/v1/cobros/${fx.cobroId}`);
  real.tx = await get(`/v1/transacciones/${fx.txId}`);
  real.dev = await get(`/v1/devoluciones/${fx.devId}`);
  real.liq = (await get('/v1/liquidaciones'))[0];
  real.cargo = (await get('/v1/cargos'))[0];
  expect(real.liq, 'the fixture has a settlement').toBeTruthy();
});

const ODD = ['10.001', '-5.00', '1e3', ' 5.00'];
/** Inside a list, "10.001" is a row svc cannot take exactly, not a broken reply (inexact-rows.test.ts). */
const LIST_ODD = ['-5.00', '1e3', ' 5.00'];

interface Case {
  name: string;
  args: () => string[];
  method: 'GET' | 'POST';
  path: () => string;
  status: number;
  /** The resource the reply carries, and how it is wrapped. */
  resource: () => Record<string, unknown>;
  list?: boolean;
  fields: string[];
  /** A POST whose reply is unreadable: "may or may not have been done". */
  post?: RegExp;
  /** Values refused (default ODD). */
  odd?: string[];
}

const CASES: Case[] = [
  {
    name: 'cobro ver',
    args: () => ['cobro', 'ver', String(fx.cobroId)],
    method: 'GET',
    path: () => `/v1/cobros/${fx.cobroId}`,
    status: 200,
    resource: () => real.cobro,
    fields: ['monto', 'monto_cobrado'],
  },
  {
    name: 'cobro listar',
    args: () => ['cobro', 'listar'],
    method: 'GET',
    path: () => '/v1/cobros',
    status: 200,
    resource: () => real.cobro,
    list: true,
    odd: LIST_ODD,
    fields: ['monto', 'monto_cobrado'],
  },
  {
    name: 'transacciones ver',
    args: () => ['transacciones', 'ver', String(fx.txId)],
    method: 'GET',
    path: () => `/v1/transacciones/${fx.txId}`,
    status: 200,
    resource: () => real.tx,
    fields: ['monto', 'te_cobramos', 'te_queda'],
  },
  {
    name: 'transacciones listar',
    args: () => ['transacciones', 'listar'],
    method: 'GET',
    path: () => '/v1/transacciones',
    status: 200,
    resource: () => real.tx,
    list: true,
    odd: LIST_ODD,
    fields: ['monto', 'te_cobramos', 'te_queda'],
  },
  {
    name: 'devoluciones ver',
    args: () => ['devoluciones', 'ver', String(fx.devId)],
    method: 'GET',
    path: () => `/v1/devoluciones/${fx.devId}`,
    status: 200,
    resource: () => real.dev,
    fields: ['monto'],
  },
  {
    name: 'devoluciones listar',
    args: () => ['devoluciones', 'listar'],
    method: 'GET',
    path: () => '/v1/devoluciones',
    status: 200,
    resource: () => real.dev,
    list: true,
    odd: LIST_ODD,
    fields: ['monto'],
  },
  {
    name: 'liquidaciones',
    args: () => ['liquidaciones'],
    method: 'GET',
    path: () => '/v1/liquidaciones',
    status: 200,
    resource: () => real.liq,
    list: true,
    odd: LIST_ODD,
    fields: ['bruto', 'te_cobramos', 'te_queda'],
  },
  {
    name: 'cargos',
    args: () => ['cargos'],
    method: 'GET',
    path: () => '/v1/cargos',
    status: 200,
    resource: () => real.cargo,
    list: true,
    fields: ['porcentaje'],
    odd: ['3.25001', '-5.00', '1e3', ' 5.00'],
  },
  // devolver reads the request and its refunds before anything is sent: today an odd
  // amount there stops it with exit 1 ("error inesperado").
  {
    name: 'devolver (reads the refunds)',
    args: () => ['devolver', String(fx.refundableId), '--monto', '0.01'],
    method: 'GET',
    path: () => '/v1/devoluciones',
    status: 200,
    resource: () => ({ ...real.dev, cobro_id: fx.refundableId }),
    list: true,
    odd: LIST_ODD,
    fields: ['monto'],
  },
  {
    name: 'devolver (reads the request)',
    args: () => ['devolver', String(fx.refundableId), '--monto', '0.01'],
    method: 'GET',
    path: () => `/v1/cobros/${fx.refundableId}`,
    status: 200,
    resource: () => ({ ...real.cobro, id: fx.refundableId }),
    fields: ['monto_cobrado'],
  },
  {
    name: 'cobro crear',
    args: () => ['cobro', 'crear', '--concepto', 'Pedido raro', '--monto', '15.00'],
    method: 'POST',
    path: () => '/v1/cobros',
    status: 201,
    resource: () => real.cobro,
    fields: ['monto', 'monto_cobrado'],
    post: /^error: el cobro de 15\.00 puede haberse creado o no \(.+\); no lo repitas sin verificar$/,
  },
  {
    name: 'sync',
    args: () => ['sync', String(fx.cobroId)],
    method: 'POST',
    path: () => `/v1/cobros/${fx.cobroId}/sync`,
    status: 200,
    resource: () => real.cobro,
    fields: ['monto', 'monto_cobrado'],
    post: /^error: la sincronización del cobro \d+ puede haberse hecho o no \(.+\)/,
  },
  {
    name: 'devolver (the reply)',
    args: () => ['devolver', String(fx.refundableId), '--monto', '0.01'],
    method: 'POST',
    path: () => `/v1/cobros/${fx.refundableId}/devoluciones`,
    status: 201,
    resource: () => ({ ...real.dev, cobro_id: fx.refundableId }),
    fields: ['monto'],
    post: /^error: la devolución de 0\.01 del cobro \d+ puede haberse hecho o no \(.+\); no la repitas sin verificar$/,
  },
];

async function runCase(c: Case, field: string, value: string) {
  const item = { ...c.resource(), [field]: value };
  await sb.clearFaults();
  await sb.fault({
    method: c.method,
    path: c.path(),
    count: 5,
    action: 'respond',
    status: c.status,
    body: { data: c.list ? [item] : item },
  });
  const r = await svc(c.args(), { env: { ...sb.env, SVC_RETRY_BACKOFF_MS: '1' } });
  await sb.clearFaults();
  return r;
}

describe("odd amounts in a reply are not the service's JSON (exit 6), endpoint by endpoint", () => {
  for (const c of CASES) {
    const odd = c.odd ?? ODD;
    it(`${c.name}: ${c.fields.join(', ')} × ${odd.map((v) => JSON.stringify(v)).join(' ')}`, async () => {
      for (const field of c.fields) {
        for (const value of odd) {
          const r = await runCase(c, field, value);
          const what = `svc ${c.args().join(' ')} with ${field}=${JSON.stringify(value)}\nexit ${r.exitCode}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;
          expectNoStack(r.stderr);
          expect(r.exitCode, what).toBe(6);
          expect(r.stdout, what).toBe('');
          const errs = lines(r.stderr).filter((l) => l.startsWith('error:'));
          expect(errs, what).toHaveLength(1);
          expect(errs[0], what).toMatch(
            new RegExp(`no tiene la forma esperada del servicio \\(data(\\.0)?\\.${field}: `),
          );
          if (c.post) {
            expect(errs[0], what).toMatch(c.post);
            expect(lines(r.stderr).at(-1), what).toMatch(/^→ para verificar: svc /);
          }
        }
      }
    });
  }

  it('amounts the seed allows still pass: "0.00", "1500", "1500.5", "999999999999.99"', async () => {
    for (const value of ['0.00', '1500', '1500.5', '999999999999.99']) {
      const r = await runCase(CASES[0]!, 'monto', value);
      expect(r.exitCode, `monto=${value}\n${r.stderr}`).toBe(0);
      expect(r.stdout).toContain(value);
    }
  });
});
