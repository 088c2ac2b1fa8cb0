// The 13 endpoints of the seed over real HTTP: envelopes, field order, validation
// with the endpoint's code and a message naming the field, keys, and isolation of
// the two merchants on every endpoint.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';
import {
  COBRO_FIELDS,
  DEVOLUCION_FIELDS,
  LIQUIDACION_FIELDS,
  LOCAL,
  TRANSACCION_FIELDS,
} from './helpers.js';

let sb: InProcessSandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());

describe('endpoints', () => {
  it('GET /v1/salud: public, not wrapped', async () => {
    const r = await sb.api('GET', '/v1/salud', undefined, null);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ok: true, name: 'svc-sandbox', version: 'v1' });
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('GET /v1/cuenta: both merchants, puede_cobrar', async () => {
    const a = await sb.api('GET', '/v1/cuenta');
    expect(a.status).toBe(200);
    expect(Object.keys(a.body.data)).toEqual(['id', 'email', 'nombre', 'puede_cobrar']);
    expect(a.body.data.puede_cobrar).toBe(true);
    const b = await sb.api('GET', '/v1/cuenta', undefined, sb.apiKeyNoListo);
    expect(b.body.data.puede_cobrar).toBe(false);
    expect(b.body.data.id).not.toBe(a.body.data.id);
  });

  it('GET /v1/cargos: one per medio', async () => {
    const r = await sb.api('GET', '/v1/cargos');
    expect(r.status).toBe(200);
    expect(r.body.data.map((c: any) => c.medio)).toEqual([
      'transferencia',
      'qr',
      'debito',
      'credito',
      'prepaga',
    ]);
  });

  it('POST /v1/cobros: 201, all fields in order, defaults of the seed', async () => {
    const before = Date.now();
    const r = await sb.api('POST', '/v1/cobros', { concepto: 'Pedido 1042', monto: '1500' });
    expect(r.status).toBe(201);
    const c = r.body.data;
    expect(Object.keys(r.body)).toEqual(['data']);
    expect(Object.keys(c)).toEqual(COBRO_FIELDS);
    expect(c).toMatchObject({
      concepto: 'Pedido 1042',
      monto: '1500.00',
      monto_cobrado: '0.00',
      estado: 'PENDIENTE',
      referencia: null,
      success_url: null,
      error_url: null,
    });
    expect(c.medios).toEqual({ tarjeta: true, qr: true, transferencia: true });
    expect(c.url).toBe(`${sb.baseUrl}/pagar/${c.codigo}`);
    expect(c.cvu).toMatch(/^\d{22}$/);
    expect(typeof c.qr).toBe('string');
    for (const f of ['vencimiento', 'created_at', 'updated_at']) expect(c[f]).toMatch(LOCAL);
    // Expiry 7 days after creation (local dates in the same zone: compare the day).
    const days =
      (Date.parse(c.vencimiento.replace(' ', 'T') + 'Z') -
        Date.parse(c.created_at.replace(' ', 'T') + 'Z')) /
      86_400_000;
    expect(days).toBe(7);
    expect(Date.now() - before).toBeLessThan(60_000);
  });

  it('POST /v1/cobros: monto normalised, options kept', async () => {
    const r = await sb.api('POST', '/v1/cobros', {
      concepto: 'Con todo',
      monto: '10.5',
      vencimiento: '2099-01-01T00:00:00-03:00',
      tarjeta: false,
      referencia: 'ref-77',
      success_url: 'https://tienda.example/ok',
      error_url: 'https://tienda.example/error',
    });
    expect(r.status, r.text).toBe(400); // more than 365 days ahead
    expect(r.body.message).toMatch(/^vencimiento:/);
    const venc = new Date(Date.now() + 3 * 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const ok = await sb.api('POST', '/v1/cobros', {
      concepto: 'Con todo',
      monto: '10.5',
      vencimiento: venc,
      tarjeta: false,
      referencia: 'ref-77',
      success_url: 'https://tienda.example/ok',
      error_url: 'https://tienda.example/error',
    });
    expect(ok.status).toBe(201);
    expect(ok.body.data).toMatchObject({
      monto: '10.50',
      referencia: 'ref-77',
      success_url: 'https://tienda.example/ok',
      error_url: 'https://tienda.example/error',
    });
    expect(ok.body.data.medios).toEqual({ tarjeta: false, qr: true, transferencia: true });
  });

  it('GET /v1/cobros: newest first, filters estado and q (codigo, concepto, referencia)', async () => {
    const a = await sb.cobro({ concepto: 'Alfajores', referencia: 'pedido-A1' });
    const b = await sb.cobro({ concepto: 'Bizcochos', referencia: 'pedido-B2' });
    await sb.api('POST', `/_sandbox/cobros/${a.id}/pagar`, {});
    const all = await sb.api('GET', '/v1/cobros');
    expect(all.status).toBe(200);
    const ids = all.body.data.map((c: any) => c.id);
    expect(ids).toEqual([...ids].sort((x: number, y: number) => y - x));
    for (const c of all.body.data) expect(Object.keys(c)).toEqual(COBRO_FIELDS);
    const q = async (query: string) =>
      (await sb.api('GET', `/v1/cobros?${query}`)).body.data.map((c: any) => c.id);
    expect(await q('q=alfajor')).toEqual([a.id]);
    expect(await q('q=pedido-B2')).toEqual([b.id]);
    expect(await q(`q=${b.codigo}`)).toEqual([b.id]);
    expect(await q('estado=PAGADA')).toEqual([a.id]);
    expect(await q('estado=PAGADA&q=bizcocho')).toEqual([]);
    expect(await q('estado=NO_EXISTE')).toEqual([]);
  });

  it('GET /v1/cobros/{id}', async () => {
    const c = await sb.cobro();
    const r = await sb.api('GET', `/v1/cobros/${c.id}`);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual(c);
  });

  it('POST /v1/cobros/{id}/sync: 200 with the refreshed object; cvu/qr filled at once', async () => {
    const slow = await startSandbox({ readyDelayMs: 60_000 });
    try {
      const c = await slow.cobro();
      expect(c.cvu).toBeNull();
      expect(c.qr).toBeNull();
      expect((await slow.api('GET', `/v1/cobros/${c.id}`)).body.data.cvu).toBeNull();
      const r = await slow.api('POST', `/v1/cobros/${c.id}/sync`, {});
      expect(r.status).toBe(200);
      expect(Object.keys(r.body.data)).toEqual(COBRO_FIELDS);
      expect(r.body.data.cvu).toMatch(/^\d{22}$/);
      expect(r.body.data.qr).toBeTruthy();
      expect(r.body.data.estado).toBe('PENDIENTE');
    } finally {
      await slow.close();
    }
  });

  it('cvu/qr appear by themselves after the ready delay', async () => {
    const s = await startSandbox({ readyDelayMs: 200 });
    try {
      const c = await s.cobro();
      expect(c.cvu).toBeNull();
      await new Promise((r) => setTimeout(r, 300));
      expect((await s.api('GET', `/v1/cobros/${c.id}`)).body.data.cvu).toMatch(/^\d{22}$/);
    } finally {
      await s.close();
    }
  });

  it('POST /v1/cobros/{id}/devoluciones, GET /v1/devoluciones[/{id}], /v1/transacciones[/{id}], /v1/liquidaciones', async () => {
    const c = await sb.cobro({ monto: '200.00' });
    const pay = await sb.api('POST', `/_sandbox/cobros/${c.id}/pagar`, { medio: 'qr' });
    expect(pay.body.data.estado).toBe('PAGADA');
    const dev = await sb.api('POST', `/v1/cobros/${c.id}/devoluciones`, { monto: '50' });
    expect(dev.status).toBe(201);
    expect(Object.keys(dev.body.data)).toEqual(DEVOLUCION_FIELDS);
    expect(dev.body.data).toMatchObject({
      cobro_id: c.id,
      monto: '50.00',
      tipo: 'parcial',
      estado: 'DEVUELTA_PARCIALMENTE',
    });
    const list = await sb.api('GET', '/v1/devoluciones');
    expect(list.body.data[0]).toEqual(dev.body.data);
    expect((await sb.api('GET', `/v1/devoluciones/${dev.body.data.id}`)).body.data).toEqual(
      dev.body.data,
    );

    const txs = await sb.api('GET', '/v1/transacciones');
    const tx = txs.body.data.find((t: any) => t.cobro_id === c.id);
    expect(Object.keys(tx)).toEqual(TRANSACCION_FIELDS);
    expect(tx).toMatchObject({
      medio: 'qr',
      monto: '200.00',
      te_cobramos: '1.98',
      te_queda: '198.02',
      estado: 'ACREDITADO',
    });
    expect((await sb.api('GET', `/v1/transacciones/${tx.id}`)).body.data).toEqual(tx);
    expect(
      (await sb.api('GET', '/v1/transacciones?medio=qr')).body.data.every(
        (t: any) => t.medio === 'qr',
      ),
    ).toBe(true);
    expect(
      (await sb.api('GET', '/v1/transacciones?medio=credito')).body.data.some(
        (t: any) => t.id === tx.id,
      ),
    ).toBe(false);
    expect(
      (await sb.api('GET', '/v1/transacciones?estado=ACREDITADO')).body.data.some(
        (t: any) => t.id === tx.id,
      ),
    ).toBe(true);
    expect(
      (await sb.api('GET', '/v1/transacciones?estado=RECHAZADO')).body.data.some(
        (t: any) => t.id === tx.id,
      ),
    ).toBe(false);

    const liqs = await sb.api('GET', '/v1/liquidaciones');
    const liq = liqs.body.data.find((l: any) => l.transaccion_id === tx.id);
    expect(Object.keys(liq)).toEqual(LIQUIDACION_FIELDS);
    expect(liq).toMatchObject({
      cobro_id: c.id,
      bruto: '200.00',
      te_cobramos: '1.98',
      te_queda: '198.02',
      estado: 'estimado',
    });
  });
});

describe('errors', () => {
  it('404 not_found: missing id is "no existe" on every id route', async () => {
    for (const path of [
      '/v1/cobros/999999',
      '/v1/transacciones/999999',
      '/v1/devoluciones/999999',
      '/v1/cobros/abc',
    ]) {
      const r = await sb.api('GET', path);
      expect(r.status, path).toBe(404);
      expect(r.body).toEqual({ error: 'not_found', message: 'no existe' });
    }
    for (const path of ['/v1/cobros/999999/sync', '/v1/cobros/999999/devoluciones']) {
      const r = await sb.api('POST', path, { monto: '1' });
      expect(r.body).toEqual({ error: 'not_found', message: 'no existe' });
    }
  });

  it('404 not_found: unknown route or method is "endpoint does not exist"', async () => {
    for (const [m, p] of [
      ['GET', '/v1/nada'],
      ['GET', '/v2/cobros'],
      ['DELETE', '/v1/cobros/1'],
      ['PUT', '/v1/cobros'],
      ['POST', '/v1/cuenta'],
      // GET / is the dashboard (test/sandbox/panel); no other method is a route there.
      ['POST', '/'],
    ] as const) {
      const r = await sb.api(m, p);
      expect(r.status, `${m} ${p}`).toBe(404);
      expect(r.body).toEqual({ error: 'not_found', message: 'no existe ese endpoint' });
    }
  });

  it('401 unauthorized: absent, malformed, unknown; live keys told the sandbox takes test keys', async () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{}, /falta el header Authorization/],
      [{ authorization: 'Basic abc' }, /header Authorization mal formado/],
      [{ authorization: 'Bearer nope' }, /clave mal formada/],
      [{ authorization: 'Bearer svc_test_00000000000000000000000000000000' }, /clave desconocida/],
      [
        { authorization: 'Bearer svc_live_00000000000000000000000000000000' },
        /toma claves test \(svc_test_…\) y su propia clave live de ensayo/,
      ],
    ];
    for (const [headers, message] of cases) {
      for (const path of ['/v1/cuenta', '/v1/cobros', '/_sandbox/entregas']) {
        const r = await sb.raw('GET', path, { key: null, headers });
        expect(r.status).toBe(401);
        expect(r.body.error).toBe('unauthorized');
        expect(r.body.message).toMatch(message);
      }
    }
    expect((await sb.raw('GET', '/v1/salud', { key: null })).status).toBe(200);
  });

  it('403 comercio_no_listo: the not-ready merchant cannot create', async () => {
    const r = await sb.api('POST', '/v1/cobros', { concepto: 'x', monto: '1' }, sb.apiKeyNoListo);
    expect(r.status).toBe(403);
    expect(r.body.error).toBe('comercio_no_listo');
    expect(Object.keys(r.body)).toEqual(['error', 'message']);
  });

  const createCases: [string, unknown, RegExp][] = [
    ['monto as a JSON number', { concepto: 'x', monto: 1500 }, /^monto: .*no un número JSON/],
    ['negative monto', { concepto: 'x', monto: '-5' }, /^monto: debe ser positivo/],
    ['zero monto', { concepto: 'x', monto: '0.00' }, /^monto: debe ser mayor que 0/],
    ['three decimals', { concepto: 'x', monto: '1.005' }, /^monto: como mucho dos decimales/],
    ['too big', { concepto: 'x', monto: '1000000000.00' }, /^monto: como mucho 999999999.99/],
    ['comma', { concepto: 'x', monto: '1,50' }, /^monto: /],
    ['monto missing', { concepto: 'x' }, /^monto: /],
    ['concepto missing', { monto: '1' }, /^concepto: falta/],
    ['concepto empty', { concepto: '  ', monto: '1' }, /^concepto: no puede estar vacío/],
    [
      'concepto too long',
      { concepto: 'x'.repeat(201), monto: '1' },
      /^concepto: como mucho 200 caracteres/,
    ],
    [
      'referencia too long',
      { concepto: 'x', monto: '1', referencia: 'r'.repeat(101) },
      /^referencia: como mucho 100/,
    ],
    [
      'http success_url',
      { concepto: 'x', monto: '1', success_url: 'http://tienda.example/ok' },
      /^success_url: debe ser una URL https/,
    ],
    [
      'bad error_url',
      { concepto: 'x', monto: '1', error_url: 'no es url' },
      /^error_url: debe ser una URL https/,
    ],
    [
      'vencimiento without offset',
      { concepto: 'x', monto: '1', vencimiento: '2099-01-01T00:00:00' },
      /^vencimiento: .*ISO 8601/,
    ],
    [
      'vencimiento not a date',
      { concepto: 'x', monto: '1', vencimiento: 'mañana' },
      /^vencimiento: /,
    ],
    [
      'vencimiento in the past',
      { concepto: 'x', monto: '1', vencimiento: '2020-01-01T00:00:00-03:00' },
      /^vencimiento: .*ya pasó/,
    ],
    [
      'no medio enabled',
      { concepto: 'x', monto: '1', tarjeta: false, qr: false, transferencia: false },
      /ningún medio de pago habilitado/,
    ],
    ['medio not boolean', { concepto: 'x', monto: '1', qr: 'no' }, /^qr: debe ser true o false/],
    ['body an array', [], /^body: debe ser un objeto JSON/],
  ];
  it.each(createCases)('POST /v1/cobros 400 create_failed: %s', async (_name, body, message) => {
    const r = await sb.api('POST', '/v1/cobros', body);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('create_failed');
    expect(r.body.message).toMatch(message);
  });

  it('invalid JSON and wrong content type: 400 with the endpoint code', async () => {
    const c = await sb.cobro();
    await sb.api('POST', `/_sandbox/cobros/${c.id}/pagar`, {});
    for (const [path, code] of [
      ['/v1/cobros', 'create_failed'],
      [`/v1/cobros/${c.id}/sync`, 'sync_failed'],
      [`/v1/cobros/${c.id}/devoluciones`, 'refund_failed'],
    ]) {
      const bad = await sb.raw('POST', path!, {
        body: '{"monto": "1"',
        headers: { 'content-type': 'application/json' },
      });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toBe(code);
      expect(bad.body.message).toMatch(/^body: no es JSON válido/);
      const type = await sb.raw('POST', path!, {
        body: 'monto=1',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(type.status).toBe(400);
      expect(type.body.error).toBe(code);
      expect(type.body.message).toMatch(/el Content-Type debe ser application\/json/);
    }
    const notObject = await sb.api('POST', `/v1/cobros/${c.id}/sync`, [1]);
    expect(notObject.body).toMatchObject({ error: 'sync_failed' });
    expect((await sb.raw('POST', `/v1/cobros/${c.id}/sync`, {})).status).toBe(200);
  });

  it('400 refund_failed: state, amounts, transaccion_id', async () => {
    const pending = await sb.cobro({ monto: '100' });
    const notCredited = await sb.api('POST', `/v1/cobros/${pending.id}/devoluciones`, {
      monto: '1',
    });
    expect(notCredited.status).toBe(400);
    expect(notCredited.body).toMatchObject({ error: 'refund_failed' });
    expect(notCredited.body.message).toMatch(/PENDIENTE no admite devolución/);

    const c = await sb.cobro({ monto: '100' });
    await sb.api('POST', `/_sandbox/cobros/${c.id}/pagar`, {});
    for (const [body, message] of [
      [{ monto: 5 }, /^monto: .*número JSON/],
      [{ monto: '-1' }, /^monto: debe ser positivo/],
      [{ monto: '0' }, /^monto: debe ser mayor que 0/],
      [{ monto: '1.001' }, /^monto: como mucho dos decimales/],
      [{ monto: '100.01' }, /es más de lo que queda por devolver \(100\.00\)/],
      [{ monto: '1', transaccion_id: 'x' }, /^transaccion_id: debe ser un entero positivo/],
      [{ monto: '1', transaccion_id: 999999 }, /^transaccion_id: la transacción 999999 no existe/],
      [{}, /^monto: /],
    ] as const) {
      const r = await sb.api('POST', `/v1/cobros/${c.id}/devoluciones`, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error).toBe('refund_failed');
      expect(r.body.message).toMatch(message);
    }
  });

  it('responses never carry a key or the secret', async () => {
    const r = await sb.api('GET', '/_sandbox/log');
    expect(r.text).not.toContain(sb.apiKey);
    expect(r.text).not.toContain(sb.webhookSecret);
  });
});

describe('isolation of the two merchants', () => {
  it('another merchant’s ids are 404 exactly as a missing one, on every endpoint', async () => {
    const c = await sb.cobro({ monto: '300', referencia: 'aislado-1' });
    await sb.api('POST', `/_sandbox/cobros/${c.id}/pagar`, { monto: '100' });
    const tx = (await sb.api('GET', '/v1/transacciones')).body.data.find(
      (t: any) => t.cobro_id === c.id,
    );
    const dev = (await sb.api('POST', `/v1/cobros/${c.id}/devoluciones`, { monto: '10' })).body
      .data;
    const other = sb.apiKeyNoListo;
    const missing = { error: 'not_found', message: 'no existe' };

    for (const [method, path, body] of [
      ['GET', `/v1/cobros/${c.id}`],
      ['POST', `/v1/cobros/${c.id}/sync`, {}],
      ['POST', `/v1/cobros/${c.id}/devoluciones`, { monto: '1' }],
      ['GET', `/v1/transacciones/${tx.id}`],
      ['GET', `/v1/devoluciones/${dev.id}`],
      ['POST', `/_sandbox/cobros/${c.id}/iniciar`, {}],
      ['POST', `/_sandbox/cobros/${c.id}/pagar`, {}],
      ['POST', `/_sandbox/cobros/${c.id}/rechazar`, {}],
      ['POST', `/_sandbox/cobros/${c.id}/expirar`, {}],
    ] as const) {
      const r = await sb.api(method, path, body, other);
      expect(r.status, path).toBe(404);
      expect(r.body).toEqual(missing);
    }
    for (const path of [
      '/v1/cobros',
      `/v1/cobros?q=aislado-1`,
      '/v1/transacciones',
      '/v1/devoluciones',
      '/v1/liquidaciones',
      '/_sandbox/entregas',
      '/_sandbox/eventos',
    ]) {
      const r = await sb.api('GET', path, undefined, other);
      expect(r.status, path).toBe(200);
      expect(r.body.data, path).toEqual([]);
    }
    // The other merchant's own data is the same for both kinds of request.
    expect((await sb.api('GET', '/v1/cargos', undefined, other)).body).toEqual(
      (await sb.api('GET', '/v1/cargos')).body,
    );
    expect((await sb.api('GET', '/v1/cuenta', undefined, other)).body.data.id).toBe(2);
    // And the owner still sees everything unchanged.
    expect((await sb.api('GET', `/v1/cobros/${c.id}`)).body.data.estado).toBe(
      'DEVUELTA_PARCIALMENTE',
    );
  });
});
