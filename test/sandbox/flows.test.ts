// State transitions and their events, over HTTP: the payer simulation, refunds,
// expiry by itself, and signed notifications (checked with an HMAC computed here),
// in order per payment request, retried on failure, listed in /_sandbox/entregas.
import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { EVENT_FIELDS, eventually } from './helpers.js';

let sb: InProcessSandbox | undefined;
let rx: Receiver | undefined;
afterEach(async () => {
  await sb?.close();
  await rx?.close();
  sb = rx = undefined;
});

async function setup(script: number[] = [], options = {}) {
  rx = await startReceiver({ script });
  sb = await startSandbox({ webhookUrl: rx.url, ...options });
  return { sb, rx };
}

/** Independent check of the seed's signature: HMAC-SHA256 hex over `<ts>.<raw body>`. */
function expectSigned(secret: string, r: { headers: Record<string, any>; text: string }) {
  expect(r.headers['content-type']).toBe('application/json');
  const ts = r.headers['x-svc-timestamp'];
  expect(ts).toMatch(/^\d+$/);
  expect(Math.abs(Number(ts) - Date.now() / 1000)).toBeLessThan(60);
  const expected = createHmac('sha256', secret).update(`${ts}.${r.text}`).digest('hex');
  expect(r.headers['x-svc-signature']).toBe(`sha256=${expected}`);
  const body = JSON.parse(r.text);
  expect(r.headers['x-svc-event']).toBe(body.event);
  expect(Object.keys(body)).toEqual(EVENT_FIELDS);
  return body;
}

const events = (r: Receiver) => r.received.map((x) => JSON.parse(x.text));

describe('transitions and events', () => {
  it('created -> pending -> partially_paid -> approved -> partially_refunded -> refunded', async () => {
    const { sb, rx } = await setup();
    const c = await sb.cobro({ monto: '100.00' });
    expect((await sb.api('POST', `/_sandbox/cobros/${c.id}/iniciar`)).body.data.estado).toBe(
      'EN_PROCESO',
    );
    const p1 = await sb.api('POST', `/_sandbox/cobros/${c.id}/pagar`, {
      monto: '40',
      medio: 'credito',
    });
    expect(p1.body.data).toMatchObject({ estado: 'PAGADA_PARCIALMENTE', monto_cobrado: '40.00' });
    const p2 = await sb.api('POST', `/_sandbox/cobros/${c.id}/pagar`, {});
    expect(p2.body.data).toMatchObject({ estado: 'PAGADA', monto_cobrado: '100.00' });
    const r1 = await sb.api('POST', `/v1/cobros/${c.id}/devoluciones`, { monto: '30' });
    expect(r1.body.data).toMatchObject({ tipo: 'parcial', estado: 'DEVUELTA_PARCIALMENTE' });
    const r2 = await sb.api('POST', `/v1/cobros/${c.id}/devoluciones`, { monto: '70' });
    expect(r2.body.data).toMatchObject({ tipo: 'total', estado: 'DEVUELTA' });
    expect((await sb.api('GET', `/v1/cobros/${c.id}`)).body.data).toMatchObject({
      estado: 'DEVUELTA',
      monto_cobrado: '100.00',
    });
    const again = await sb.api('POST', `/v1/cobros/${c.id}/devoluciones`, { monto: '0.01' });
    expect(again.body).toMatchObject({ error: 'refund_failed' });

    await rx.waitFor(6);
    const bodies = rx.received.map((r) => expectSigned(sb.webhookSecret, r));
    expect(bodies.map((b) => [b.event, b.estado, b.monto_cobrado])).toEqual([
      ['payment.created', 'PENDIENTE', '0.00'],
      ['payment.pending', 'EN_PROCESO', '0.00'],
      ['payment.partially_paid', 'PAGADA_PARCIALMENTE', '40.00'],
      ['payment.approved', 'PAGADA', '100.00'],
      ['payment.partially_refunded', 'DEVUELTA_PARCIALMENTE', '100.00'],
      ['payment.refunded', 'DEVUELTA', '100.00'],
    ]);
    const txs = (await sb.api('GET', '/v1/transacciones')).body.data;
    expect(bodies[0].transaccion_id).toBeNull();
    expect(bodies[1].transaccion_id).toBeNull();
    expect(bodies[2].transaccion_id).toBe(txs.find((t: any) => t.monto === '40.00').id);
    expect(bodies[3].transaccion_id).toBe(txs.find((t: any) => t.monto === '60.00').id);
    expect(bodies[4].transaccion_id).toBeNull();
    for (const b of bodies)
      expect(b).toMatchObject({ cobro_id: c.id, codigo: c.codigo, monto: '100.00' });
    // Fees of the credit-card transaction: 4.3900 % of 40.00 = 1.756 -> 1.76.
    expect(txs.find((t: any) => t.monto === '40.00')).toMatchObject({
      medio: 'credito',
      te_cobramos: '1.76',
      te_queda: '38.24',
    });
    expect((await sb.api('GET', '/v1/liquidaciones')).body.data).toHaveLength(2);
  });

  it('rechazar: a RECHAZADO transaction, CANCELADO, payment.rejected with its transaccion_id', async () => {
    const { sb, rx } = await setup();
    const c = await sb.cobro({ monto: '75.5' });
    const r = await sb.api('POST', `/_sandbox/cobros/${c.id}/rechazar`, { medio: 'debito' });
    expect(r.body.data.estado).toBe('CANCELADO');
    const tx = (await sb.api('GET', '/v1/transacciones?estado=RECHAZADO')).body.data[0];
    expect(tx).toMatchObject({
      cobro_id: c.id,
      medio: 'debito',
      monto: '75.50',
      te_cobramos: '0.00',
      te_queda: '0.00',
      estado: 'RECHAZADO',
    });
    expect((await sb.api('GET', '/v1/liquidaciones')).body.data).toEqual([]);
    await rx.waitFor(2);
    expect(events(rx)[1]).toMatchObject({
      event: 'payment.rejected',
      estado: 'CANCELADO',
      transaccion_id: tx.id,
    });
    const refund = await sb.api('POST', `/v1/cobros/${c.id}/devoluciones`, { monto: '1' });
    expect(refund.body.error).toBe('refund_failed');
  });

  it('expirar: CANCELADO, payment.rejected without transaction', async () => {
    const { sb, rx } = await setup();
    const c = await sb.cobro();
    expect((await sb.api('POST', `/_sandbox/cobros/${c.id}/expirar`)).body.data.estado).toBe(
      'CANCELADO',
    );
    await rx.waitFor(2);
    expect(events(rx)[1]).toMatchObject({
      event: 'payment.rejected',
      estado: 'CANCELADO',
      transaccion_id: null,
    });
  });

  it('a request past its vencimiento becomes CANCELADO by itself, with its event', async () => {
    const { sb, rx } = await setup();
    const venc = new Date(Date.now() + 1500).toISOString();
    const c = await sb.cobro({ vencimiento: venc });
    await rx.waitFor(2, 20_000);
    expect(events(rx)[1]).toMatchObject({
      event: 'payment.rejected',
      cobro_id: c.id,
      estado: 'CANCELADO',
    });
    expect((await sb.api('GET', `/v1/cobros/${c.id}`)).body.data.estado).toBe('CANCELADO');
    const pay = await sb.api('POST', `/_sandbox/cobros/${c.id}/pagar`);
    expect(pay.body).toMatchObject({ error: 'invalid_state' });
  });

  it('payer simulation refuses what the state machine refuses', async () => {
    const { sb } = await setup();
    const c = await sb.cobro({ monto: '10', tarjeta: false });
    expect(
      (await sb.api('POST', `/_sandbox/cobros/${c.id}/pagar`, { monto: '10.01' })).body.message,
    ).toMatch(/es más de lo que falta pagar/);
    expect(
      (await sb.api('POST', `/_sandbox/cobros/${c.id}/pagar`, { medio: 'credito' })).body.message,
    ).toMatch(/no acepta credito/);
    expect((await sb.api('POST', `/_sandbox/cobros/${c.id}/pagar`, { monto: 5 })).status).toBe(400);
    await sb.api('POST', `/_sandbox/cobros/${c.id}/pagar`);
    for (const a of ['iniciar', 'rechazar', 'expirar', 'pagar']) {
      const r = await sb.api('POST', `/_sandbox/cobros/${c.id}/${a}`);
      expect(r.status, a).toBe(400);
      expect(r.body.error).toBe('invalid_state');
    }
  });

  it('refund with transaccion_id: bounded by what is left of that transaction', async () => {
    const { sb } = await setup();
    const c = await sb.cobro({ monto: '100' });
    await sb.api('POST', `/_sandbox/cobros/${c.id}/pagar`, { monto: '30' });
    await sb.api('POST', `/_sandbox/cobros/${c.id}/pagar`, { monto: '70' });
    const [t70, t30] = (await sb.api('GET', '/v1/transacciones')).body.data;
    expect(t30.monto).toBe('30.00');
    const over = await sb.api('POST', `/v1/cobros/${c.id}/devoluciones`, {
      monto: '30.01',
      transaccion_id: t30.id,
    });
    expect(over.body).toMatchObject({ error: 'refund_failed' });
    expect(over.body.message).toMatch(/^transaccion_id: .*queda de la transacción \(30\.00\)/);
    expect(
      (
        await sb.api('POST', `/v1/cobros/${c.id}/devoluciones`, {
          monto: '30',
          transaccion_id: t30.id,
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await sb.api('POST', `/v1/cobros/${c.id}/devoluciones`, {
          monto: '0.01',
          transaccion_id: t30.id,
        })
      ).status,
    ).toBe(400);
    const other = await sb.cobro({ monto: '5' });
    await sb.api('POST', `/_sandbox/cobros/${other.id}/pagar`);
    const foreign = await sb.api('POST', `/v1/cobros/${other.id}/devoluciones`, {
      monto: '1',
      transaccion_id: t70.id,
    });
    expect(foreign.body.message).toMatch(/no es de este cobro/);
  });
});

describe('delivery', () => {
  it('retries non-2xx and timeouts on the schedule, keeps order per request, lists attempts', async () => {
    const { sb, rx } = await setup([500, 503], { retrySchedule: [50, 50, 50] });
    const c = await sb.cobro();
    await sb.api('POST', `/_sandbox/cobros/${c.id}/iniciar`);
    await sb.api('POST', `/_sandbox/cobros/${c.id}/pagar`);
    await rx.waitFor(5);
    // Same created event three times (500, 503, 200), then the others in order.
    expect(events(rx).map((e) => e.event)).toEqual([
      'payment.created',
      'payment.created',
      'payment.created',
      'payment.pending',
      'payment.approved',
    ]);
    // Each attempt is signed with its own timestamp over the same body.
    for (const r of rx.received) expectSigned(sb.webhookSecret, r);
    const entregas = await eventually(async () => {
      const list = (await sb.api('GET', '/_sandbox/entregas')).body.data;
      return list.length === 5 && list;
    });
    expect(entregas.map((e: any) => [e.event, e.intento, e.status, e.ok])).toEqual([
      ['payment.created', 1, 500, false],
      ['payment.created', 2, 503, false],
      ['payment.created', 3, 200, true],
      ['payment.pending', 1, 200, true],
      ['payment.approved', 1, 200, true],
    ]);
    for (const e of entregas) {
      expect(typeof e.latencia_ms).toBe('number');
      expect(e.url).toBe(rx.url);
    }
  });

  it('gives up after the last attempt and goes on with the next event', async () => {
    const { sb, rx } = await setup([500, 500, 500], { retrySchedule: [20, 20] });
    const c = await sb.cobro();
    await sb.api('POST', `/_sandbox/cobros/${c.id}/expirar`);
    await rx.waitFor(4);
    expect(events(rx).map((e) => e.event)).toEqual([
      'payment.created',
      'payment.created',
      'payment.created',
      'payment.rejected',
    ]);
    const list = await eventually(async () => {
      const l = (await sb.api('GET', '/_sandbox/entregas')).body.data;
      return l.length === 4 && l;
    });
    expect(list[2]).toMatchObject({ intento: 3, ok: false, proximo_intento_ms: null });
  });

  it('an unreachable receiver is recorded without a status', async () => {
    sb = await startSandbox({ webhookUrl: 'http://127.0.0.1:9/nadie', retrySchedule: [] });
    await sb.cobro();
    const list = await eventually(async () => {
      const l = (await sb!.api('GET', '/_sandbox/entregas')).body.data;
      return l.length === 1 && l;
    });
    expect(list[0]).toMatchObject({ status: null, ok: false, intento: 1 });
    expect(list[0].error).toBeTruthy();
  });

  it('POST /_sandbox/webhook sets the URL (https or loopback http only)', async () => {
    rx = await startReceiver();
    sb = await startSandbox();
    expect(
      (await sb.api('POST', '/_sandbox/webhook', { url: 'http://example.com/hook' })).status,
    ).toBe(400);
    expect((await sb.api('POST', '/_sandbox/webhook', { url: 'ftp://127.0.0.1/x' })).status).toBe(
      400,
    );
    const set = await sb.api('POST', '/_sandbox/webhook', { url: rx.url });
    expect(set.body.data).toEqual({ url: rx.url });
    const c = await sb.cobro();
    await rx.waitFor(1);
    expect(expectSigned(sb.webhookSecret, rx.received[0]!)).toMatchObject({
      event: 'payment.created',
      cobro_id: c.id,
    });
    // The other merchant has its own URL: nothing of merchant 1 goes there, and its lists are its own.
    expect(
      (await sb.api('GET', '/_sandbox/webhook', undefined, sb.apiKeyNoListo)).body.data.url,
    ).toBeNull();
  });
});
