// The endpoint table (src/api/contract.ts) is what the client calls, what the sandbox
// routes and checks, and what the sandbox answers: each is held to it here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  API,
  pathMatches,
  requestSchema,
  type Endpoint,
  type EndpointName,
} from '../../src/api/contract.js';
import { Client } from '../../src/api/client.js';
import { ROUTES } from '../../src/sandbox/router.js';
import type { LogEntry } from '../../src/sandbox/faults.js';
import { startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';

const NAMES = Object.keys(API) as EndpointName[];

describe('the endpoint table', () => {
  it('lists the thirteen endpoints of the interface, and the client has a method for each', () => {
    expect(NAMES).toHaveLength(13);
    for (const name of NAMES)
      expect(typeof (Client.prototype as unknown as Record<string, unknown>)[name], name).toBe(
        'function',
      );
  });

  it('is the sandbox /v1 routes: the same methods, paths, access and 400 codes, nothing more', () => {
    const v1 = ROUTES.filter((r) => r.parts[0] === 'v1');
    expect(v1.map((r) => `${r.method} /${r.parts.join('/')}`)).toEqual(
      NAMES.map((n) => `${API[n].method} ${API[n].path.replaceAll('{id}', ':')}`),
    );
    for (const r of v1) {
      const e = API[r.endpoint!];
      expect(r.access, r.endpoint).toBe(e.access === 'public' ? 'public' : 'api');
      expect(r.code, r.endpoint).toBe('error400' in e ? e.error400 : 'bad_request');
    }
  });
});

describe('the client and the sandbox, both from the table', () => {
  let sb: InProcessSandbox;
  const seen: LogEntry[] = [];
  const errors: unknown[] = [];
  beforeAll(async () => {
    sb = await startSandbox({
      onRequest: (entry) => seen.push(entry),
      onError: (err) => errors.push(err),
    });
  });
  afterAll(() => sb.close());

  it('each client method calls its endpoint of the table, and its reply passes the sandbox check', async () => {
    const client = new Client({ baseUrl: sb.baseUrl, apiKey: sb.apiKey });
    const cobro = (await client.crearCobro({ concepto: 'Pedido', monto: '100.00' })).data.data;
    await sb.api('POST', `/_sandbox/cobros/${cobro.id}/pagar`, {});
    const dev = (await client.devolver(cobro.id, { monto: '10.00' })).data.data;
    const tx = (await client.listarTransacciones()).data.data[0]!;
    seen.length = 0;
    const calls: [EndpointName, () => Promise<unknown>][] = [
      ['salud', () => client.salud()],
      ['cuenta', () => client.cuenta()],
      ['cargos', () => client.cargos()],
      ['crearCobro', () => client.crearCobro({ concepto: 'Otro', monto: '5.00' })],
      ['listarCobros', () => client.listarCobros({ estado: 'PENDIENTE' })],
      ['verCobro', () => client.verCobro(cobro.id)],
      ['syncCobro', () => client.syncCobro(cobro.id)],
      ['devolver', () => client.devolver(cobro.id, { monto: '1.00' })],
      ['listarTransacciones', () => client.listarTransacciones()],
      ['verTransaccion', () => client.verTransaccion(tx.id)],
      ['listarDevoluciones', () => client.listarDevoluciones()],
      ['verDevolucion', () => client.verDevolucion(dev.id)],
      ['listarLiquidaciones', () => client.listarLiquidaciones()],
    ];
    expect(calls.map(([name]) => name)).toEqual(NAMES);
    for (const [name, call] of calls) {
      const res = (await call()) as { http: number };
      expect(res.http, name).toBe(API[name].reply.status);
      const last = seen.at(-1)!;
      expect(last.method, name).toBe(API[name].method);
      expect(pathMatches(API[name], last.path), `${name}: ${last.path}`).toBe(true);
    }
    expect(errors).toEqual([]);
  });

  it('a reply that drifts from the table (a misspelt field) is a loud 500 naming it, not a pass', async () => {
    const c = await sb.cobro();
    const { store } = sb.app.deps;
    const rec = store.cobros.get(store.merchantByKey(sb.apiKey)!.id, c.id)!;
    store.commit([
      ['cobro', { ...rec, wire: { ...rec.wire, monto_cobradoo: '0.00' } as typeof rec.wire }],
    ]);
    const r = await sb.raw('GET', `/v1/cobros/${c.id}`);
    expect(r.status).toBe(500);
    expect(r.body.error).toBe('internal_error');
    expect(r.body.message).toContain(`GET /v1/cobros/${c.id}`);
    expect(r.body.message).toContain('data: fields the table does not list (monto_cobradoo)');
    expect(String(errors.at(-1))).toContain('monto_cobradoo');
    errors.length = 0;
  });
});

describe('request bodies: the zod schema of the table and the sandbox readers agree', () => {
  let sb: InProcessSandbox;
  beforeAll(async () => {
    sb = await startSandbox();
  });
  afterAll(() => sb.close());

  const BASE: Partial<Record<EndpointName, Record<string, unknown>>> = {
    crearCobro: { concepto: 'Pedido', monto: '10.00' },
    devolver: { monto: '1.00' },
  };
  const WRONG: Record<string, unknown[]> = {
    texto: [5, true, {}],
    monto: [10, true],
    fecha: [5, false],
    booleano: ['true', null, 1],
    https: [5, false],
    id: ['1', true],
  };

  for (const name of ['crearCobro', 'devolver'] as const) {
    const e: Endpoint = API[name];
    for (const [field, f] of Object.entries(e.request!.fields)) {
      for (const value of [...WRONG[f.kind]!, ...('required' in f ? [undefined, null] : [])]) {
        it(`${name}: ${field} = ${JSON.stringify(value) ?? 'absent'} is refused by both, with ${e.error400}`, async () => {
          const body = { ...BASE[name], [field]: value };
          expect(requestSchema(e.request!).safeParse(body).success).toBe(false);
          const c = await sb.cobro();
          await sb.api('POST', `/_sandbox/cobros/${c.id}/pagar`, {});
          const r = await sb.api('POST', e.path.replace('{id}', String(c.id)), body);
          expect(r.status, r.text).toBe(400);
          expect(r.body.error).toBe(e.error400);
          expect(r.body.message.startsWith(`${field}:`), r.body.message).toBe(true);
        });
      }
    }
  }

  it('a body the zod schema takes (optional fields absent or null where allowed) is one the sandbox takes', async () => {
    const c = await sb.cobro();
    await sb.api('POST', `/_sandbox/cobros/${c.id}/pagar`, {});
    const bodies: [EndpointName, Record<string, unknown>][] = [
      [
        'crearCobro',
        {
          concepto: 'A',
          monto: '1.00',
          vencimiento: null,
          referencia: null,
          success_url: null,
          error_url: null,
          tarjeta: false,
        },
      ],
      [
        'crearCobro',
        { concepto: 'B', monto: '2.50', referencia: 'r-1', success_url: 'https://example.com/ok' },
      ],
      ['devolver', { monto: '1.00', transaccion_id: null }],
      ['syncCobro', {}],
    ];
    for (const [name, body] of bodies) {
      const e: Endpoint = API[name];
      expect(requestSchema(e.request!).safeParse(body).success, name).toBe(true);
      const r = await sb.api('POST', e.path.replace('{id}', String(c.id)), body);
      expect(r.status, r.text).toBe(e.reply.status);
    }
  });
});
