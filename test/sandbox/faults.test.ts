// Fault injection (POST/DELETE /_sandbox/fallas) and the request log, as clients'
// reliability tests use them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';

let sb: InProcessSandbox;
beforeAll(async () => {
  // Injected faults answer bodies of the test's own making: not the wire, so unchecked.
  sb = await startSandbox({ uncheckedReplies: true });
});
afterAll(() => sb.close());

/** A request on a fresh connection; resolves 'cut' when the socket is closed without an answer. */
function rawCall(
  method: string,
  path: string,
  body?: string,
): Promise<{ status: number; text: string } | 'cut'> {
  return new Promise((resolve) => {
    const url = new URL(sb.baseUrl + path);
    const req = request(
      url,
      {
        method,
        agent: false,
        headers: {
          authorization: `Bearer ${sb.apiKey}`,
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, text }));
      },
    );
    req.on('error', () => resolve('cut'));
    req.end(body);
  });
}

describe('fallas', () => {
  it('every: one in every n matching calls fails, the others pass untouched, until the count runs out', async () => {
    const c = await sb.cobro();
    const f = await sb.api('POST', '/_sandbox/fallas', {
      method: 'GET',
      path: `/v1/cobros/${c.id}`,
      count: 2,
      every: 3,
      action: 'respond',
      status: 500,
    });
    expect(f.status).toBe(201);
    expect((f.body as { data: unknown }).data).toMatchObject({ every: 3, count: 2 });
    const statuses: number[] = [];
    for (let i = 0; i < 9; i++) statuses.push((await sb.api('GET', `/v1/cobros/${c.id}`)).status);
    expect(statuses).toEqual([200, 200, 500, 200, 200, 500, 200, 200, 200]);
    for (const every of [0, 1001, 1.5, '3']) {
      const bad = await sb.api('POST', '/_sandbox/fallas', {
        path: '/v1/cobros',
        action: 'cut',
        every,
      });
      expect(bad.status, String(every)).toBe(400);
      expect((bad.body as { message: string }).message).toMatch(/^every: un entero de 1 a 1000/);
    }
  });

  it('respond: status and JSON body for the next N matching calls, then normal', async () => {
    const c = await sb.cobro();
    const f = await sb.api('POST', '/_sandbox/fallas', {
      method: 'GET',
      path: `/v1/cobros/${c.id}`,
      count: 2,
      action: 'respond',
      status: 503,
      body: { error: 'mantenimiento', message: 'volvé en un rato' },
      headers: { 'Retry-After': '1' },
    });
    expect(f.status).toBe(201);
    for (let i = 0; i < 2; i++) {
      const r = await sb.api('GET', `/v1/cobros/${c.id}`);
      expect(r.status).toBe(503);
      expect(r.body).toEqual({ error: 'mantenimiento', message: 'volvé en un rato' });
      expect(r.headers.get('retry-after')).toBe('1');
    }
    expect((await sb.api('GET', `/v1/cobros/${c.id}`)).status).toBe(200);
  });

  it('respond: an HTML page, and a prefix pattern; other methods untouched', async () => {
    await sb.api('POST', '/_sandbox/fallas', {
      method: 'GET',
      path: '/v1/cobros*',
      action: 'respond',
      status: 502,
      body: '<html><body>Bad Gateway</body></html>',
    });
    expect((await sb.api('POST', '/v1/cobros', { concepto: 'x', monto: '1' })).status).toBe(201);
    const r = await sb.api('GET', '/v1/cobros?q=x');
    expect(r.status).toBe(502);
    expect(r.headers.get('content-type')).toMatch(/text\/html/);
    expect(r.text).toContain('Bad Gateway');
  });

  it('respond does not touch the store', async () => {
    const before = (await sb.api('GET', '/v1/cobros')).body.data.length;
    await sb.api('POST', '/_sandbox/fallas', {
      method: 'POST',
      path: '/v1/cobros',
      action: 'respond',
      status: 500,
    });
    const r = await sb.api('POST', '/v1/cobros', { concepto: 'x', monto: '1' });
    expect(r.status).toBe(500);
    expect(r.body.error).toBeTruthy();
    expect((await sb.api('GET', '/v1/cobros')).body.data.length).toBe(before);
  });

  it('cut: the connection closes without processing', async () => {
    const before = (await sb.api('GET', '/v1/cobros')).body.data.length;
    await sb.api('POST', '/_sandbox/fallas', { method: 'POST', path: '/v1/cobros', action: 'cut' });
    expect(await rawCall('POST', '/v1/cobros', JSON.stringify({ concepto: 'x', monto: '1' }))).toBe(
      'cut',
    );
    expect((await sb.api('GET', '/v1/cobros')).body.data.length).toBe(before);
  });

  it('cut_after: the change is made, then the connection closes without an answer', async () => {
    const c = await sb.cobro({ monto: '10' });
    await sb.api('POST', `/_sandbox/cobros/${c.id}/pagar`);
    await sb.api('POST', '/_sandbox/fallas', {
      path: `/v1/cobros/${c.id}/devoluciones`,
      action: 'cut_after',
    });
    expect(
      await rawCall('POST', `/v1/cobros/${c.id}/devoluciones`, JSON.stringify({ monto: '4' })),
    ).toBe('cut');
    expect((await sb.api('GET', `/v1/cobros/${c.id}`)).body.data.estado).toBe(
      'DEVUELTA_PARCIALMENTE',
    );
    expect((await sb.api('GET', '/v1/devoluciones')).body.data[0]).toMatchObject({
      cobro_id: c.id,
      monto: '4.00',
    });
  });

  it('delay: answers late (after a request sent later), then normally', async () => {
    await sb.api('POST', '/_sandbox/fallas', {
      method: 'GET',
      path: '/v1/cuenta',
      action: 'delay',
      delay_ms: 1_500,
    });
    const order: string[] = [];
    const slow = sb.api('GET', '/v1/cuenta').then((r) => (order.push('cuenta'), r));
    const fast = sb.api('GET', '/v1/salud').then((r) => (order.push('salud'), r));
    const [r] = await Promise.all([slow, fast]);
    expect(r.status).toBe(200);
    expect(order).toEqual(['salud', 'cuenta']);
    expect((await sb.api('GET', '/v1/cuenta')).status).toBe(200);
  });

  it('control-plane routes never fail; bad fault bodies are 400; DELETE clears', async () => {
    expect(
      (await sb.api('POST', '/_sandbox/fallas', { path: '/_sandbox/log', action: 'cut' })).status,
    ).toBe(400);
    expect(
      (await sb.api('POST', '/_sandbox/fallas', { path: '/v1/cuenta', action: 'explode' })).body
        .message,
    ).toMatch(/^action:/);
    expect(
      (await sb.api('POST', '/_sandbox/fallas', { path: 'v1', action: 'cut' })).body.message,
    ).toMatch(/^path:/);
    expect(
      (await sb.api('POST', '/_sandbox/fallas', { path: '/v1/cuenta', action: 'delay' })).body
        .message,
    ).toMatch(/^delay_ms:/);
    expect(
      (
        await sb.api('POST', '/_sandbox/fallas', {
          path: '/v1/cuenta',
          action: 'respond',
          count: 0,
        })
      ).body.message,
    ).toMatch(/^count:/);
    await sb.api('POST', '/_sandbox/fallas', {
      path: '/v1/cuenta',
      action: 'respond',
      status: 500,
      count: 5,
    });
    expect((await sb.api('GET', '/_sandbox/fallas')).body.data).toHaveLength(1);
    expect((await sb.api('DELETE', '/_sandbox/fallas')).body.data).toEqual({ borradas: 1 });
    expect((await sb.api('GET', '/v1/cuenta')).status).toBe(200);
  });

  it('/_sandbox/log lists method, path, status and time, never keys', async () => {
    await sb.api('GET', '/v1/cobros/424242');
    const log = (await sb.api('GET', '/_sandbox/log')).body.data;
    const last = log.filter((e: any) => e.path === '/v1/cobros/424242').pop();
    expect(Object.keys(last)).toEqual([
      'id',
      'method',
      'path',
      'status',
      'ms',
      'fecha',
      'comercio',
    ]);
    expect(last).toMatchObject({ method: 'GET', status: 404 });
    expect(log.some((e: any) => e.status === null)).toBe(true); // the cut ones
    expect(JSON.stringify(log)).not.toContain(sb.apiKey);
  });
});
