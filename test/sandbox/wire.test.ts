// The seed's small print where the CLI and the sandbox disagreed: a key judged
// locally by its prefix only, `webhook trigger` refund samples as the sandbox sends
// them, and updated_at moving when cvu/qr become ready.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { EVENTOS } from '../../src/api/enums.js';
import { EventoBody } from '../../src/api/schemas.js';
import { keyMode } from '../../src/config/resolve.js';
import { sampleBody } from '../../src/webhooks/events.js';
import { expectNoStack, svcSpawned } from '../helpers/cli.js';
import { startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';

describe('a key is judged locally by its prefix only', () => {
  it("svc_test_/svc_live_ and a body of visible ASCII is a key; the rest is the service's to judge", () => {
    expect(keyMode('svc_test_x')).toBe('test');
    expect(keyMode('svc_live_a.b~c/d+e=')).toBe('live');
    expect(keyMode('svc_test_abc')).toBe('test');
    for (const bad of [
      'svc_test_',
      'svc_live_',
      'sk_test_abcdefgh',
      'svc_prod_abcdefgh',
      'svc_test_ab cd',
      'svc_test_ab\ncd',
      'svc_test_ñandú',
    ]) {
      expect(keyMode(bad), JSON.stringify(bad)).toBeUndefined();
    }
  });

  describe('against the sandbox', () => {
    let sb: InProcessSandbox;
    beforeAll(async () => {
      sb = await startSandbox();
    });
    afterAll(() => sb.close());

    it('a short key with the right prefix is sent, and the service answers 401 (exit 3), not a local format error (exit 2)', async () => {
      const r = await svcSpawned(['cuenta'], {
        env: { SVC_BASE_URL: sb.baseUrl, SVC_API_KEY: 'svc_test_abc' },
      });
      expect(r.stderr).not.toMatch(/no tiene el formato/);
      expect(r.stderr).toMatch(/unauthorized|clave/i);
      expect(r.exitCode).toBe(3);
      expect(r.stderr).not.toContain('svc_test_abc');
      expectNoStack(r.stderr);
    });

    it('a key without the prefix is still refused before sending (exit 2)', async () => {
      const calls = async () =>
        (await sb.api('GET', '/_sandbox/log')).body.data.filter(
          (e: { path: string }) => e.path === '/v1/cuenta',
        ).length;
      const before = await calls();
      const r = await svcSpawned(['cuenta'], {
        env: { SVC_BASE_URL: sb.baseUrl, SVC_API_KEY: 'sk_test_abcdefghij' },
      });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(/no tiene el formato svc_test_… \/ svc_live_…/);
      expect(await calls()).toBe(before);
    });
  });
});

describe('webhook trigger samples are the bodies the sandbox sends', () => {
  let sb: InProcessSandbox;
  beforeAll(async () => {
    sb = await startSandbox();
  });
  afterAll(() => sb.close());

  it('every sample is a notification body of the wire', () => {
    for (const e of EVENTOS)
      expect(z.strictObject(EventoBody.shape).safeParse(sampleBody(e)).success, e).toBe(true);
  });

  it('refund samples carry transaccion_id null, as the sandbox sends for a refund that names no transaction', async () => {
    const cobro = await sb.cobro({ monto: '1000.00' });
    expect((await sb.api('POST', `/_sandbox/cobros/${cobro.id}/pagar`, {})).status).toBe(200);
    expect(
      (await sb.api('POST', `/v1/cobros/${cobro.id}/devoluciones`, { monto: '100.00' })).status,
    ).toBe(201);
    expect(
      (await sb.api('POST', `/v1/cobros/${cobro.id}/devoluciones`, { monto: '900.00' })).status,
    ).toBe(201);
    const sent = (await sb.api('GET', '/_sandbox/eventos')).body.data.map(
      (e: { body: EventoBody }) => e.body,
    );
    for (const event of ['payment.partially_refunded', 'payment.refunded'] as const) {
      const real = sent.find((b: EventoBody) => b.event === event && b.cobro_id === cobro.id);
      expect(real, event).toBeDefined();
      expect(sampleBody(event).transaccion_id, event).toBe(real.transaccion_id);
      expect(sampleBody(event).transaccion_id, event).toBeNull();
    }
    // Payment events carry their transaction, in the sandbox and in the samples.
    const approved = sent.find(
      (b: EventoBody) => b.event === 'payment.approved' && b.cobro_id === cobro.id,
    );
    expect(typeof approved.transaccion_id).toBe('number');
    expect(typeof sampleBody('payment.approved').transaccion_id).toBe('number');
  });
});

describe('updated_at moves when cvu/qr become ready', () => {
  // The sandbox's clock is moved by hand: nothing here depends on the machine's speed.
  const T0 = 1_767_225_600_000; // a whole second
  let t = T0;
  let sb: InProcessSandbox;
  beforeAll(async () => {
    sb = await startSandbox({ now: () => t, readyDelayMs: 1500 });
  });
  afterAll(() => sb.close());

  it('by itself after the ready delay: updated_at is the moment they appeared, and stays', async () => {
    t = T0;
    const created = await sb.cobro();
    expect(created.cvu).toBeNull();
    expect(created.qr).toBeNull();
    expect(created.updated_at).toBe(created.created_at);
    t = T0 + 1000;
    expect((await sb.api('GET', `/v1/cobros/${created.id}`)).body.data.updated_at).toBe(
      created.created_at,
    );
    t = T0 + 5000;
    const ready = (await sb.api('GET', `/v1/cobros/${created.id}`)).body.data;
    expect(ready.cvu).not.toBeNull();
    expect(ready.qr).not.toBeNull();
    expect(ready.updated_at).toBe(sb.app.deps.clock.local(T0 + 1500));
    expect(ready.updated_at > created.updated_at).toBe(true);
    t = T0 + 9000;
    expect((await sb.api('GET', `/v1/cobros/${created.id}`)).body.data.updated_at).toBe(
      ready.updated_at,
    );
  });

  it('at once on sync: updated_at is the moment of the sync', async () => {
    t = T0 + 20_000;
    const created = await sb.cobro();
    t = T0 + 21_000;
    const synced = (await sb.api('POST', `/v1/cobros/${created.id}/sync`, {})).body.data;
    expect(synced.cvu).not.toBeNull();
    expect(synced.updated_at).toBe(sb.app.deps.clock.local(T0 + 21_000));
    expect(synced.updated_at > created.updated_at).toBe(true);
  });

  it('a request with neither transferencia nor qr has nothing to show: updated_at stays', async () => {
    t = T0 + 30_000;
    const created = await sb.cobro({ transferencia: false, qr: false });
    t = T0 + 40_000;
    const later = (await sb.api('GET', `/v1/cobros/${created.id}`)).body.data;
    expect(later.cvu).toBeNull();
    expect(later.updated_at).toBe(created.updated_at);
  });
});
