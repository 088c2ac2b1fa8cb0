// Values and answers a real service may send within the seed: a body compressed
// although svc did not ask for it, ids up to 2^53 − 1 taken alike by every command, a
// reply about another record than the one asked for, a 429 that says when to come
// back, and a request that went unanswered through its retries.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svc } from '../helpers/inproc.js';
import { startSandbox, type Sandbox } from '../helpers/sandbox.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb?.stop());

describe('a body with a Content-Encoding svc did not ask for is decoded', () => {
  it('svc sandbox --comprimir gzip: requests are created, read and listed', async () => {
    const gz = await startSandbox({ argv: ['--comprimir', 'gzip'] });
    try {
      const raw = await fetch(`${gz.base_url}/v1/cuenta`, {
        headers: { authorization: `Bearer ${gz.api_key}`, 'accept-encoding': 'identity' },
      });
      expect(raw.headers.get('content-encoding')).toBe('gzip');
      const made = await svc(
        ['cobro', 'crear', '--concepto', 'Zip', '--monto', '10.00', '--json'],
        {
          env: gz.env,
        },
      );
      expect(made.exitCode, made.stderr).toBe(0);
      const id = JSON.parse(made.stdout).id as number;
      const ver = await svc(['cobro', 'ver', String(id), '--json'], { env: gz.env });
      expect(ver.exitCode, ver.stderr).toBe(0);
      expect(JSON.parse(ver.stdout)).toMatchObject({ id, monto: '10.00' });
      const list = await svc(['cobro', 'listar', '--json'], { env: gz.env });
      expect(list.exitCode, list.stderr).toBe(0);
      expect(JSON.parse(list.stdout)).toHaveLength(1);
    } finally {
      await gz.stop();
    }
  });

  it.each(['deflate', 'br'] as const)('%s: svc cuenta reads it', async (coding) => {
    const z = await startSandbox({ compress: coding });
    try {
      const r = await svc(['cuenta', '--json'], { env: z.env });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toHaveProperty('puede_cobrar', true);
    } finally {
      await z.stop();
    }
  });
});

describe('ids', () => {
  it('one limit for every command: up to 2^53 − 1, as a reply may carry', async () => {
    const max = await svc(['cobro', 'ver', String(Number.MAX_SAFE_INTEGER)], { env: sb.env });
    // Asked of the service (it has no such request), not refused as a typo.
    expect(max.exitCode, max.stderr).toBe(5);
    const listed = await svc(['devoluciones', 'ver', String(Number.MAX_SAFE_INTEGER)], {
      env: sb.env,
    });
    expect(listed.exitCode, listed.stderr).toBe(5);
    for (const args of [
      ['cobro', 'ver', '9007199254740992'],
      ['devoluciones', 'ver', '9007199254740992'],
    ]) {
      const past = await svc(args, { env: sb.env });
      expect(past.exitCode).toBe(2);
      expect(past.stderr).toMatch(/id inválido: "9007199254740992" .*hasta 9007199254740991/);
    }
  });

  it('a reply about another record than the one asked for is refused', async () => {
    const a = (await sb.api('POST', '/v1/cobros', { concepto: 'A', monto: '1.00' })).body.data;
    const b = (await sb.api('POST', '/v1/cobros', { concepto: 'B', monto: '2.00' })).body.data;
    await sb.api('POST', '/_sandbox/fallas', {
      method: 'GET',
      path: `/v1/cobros/${a.id}`,
      action: 'respond',
      status: 200,
      body: { data: b },
      count: 3,
    });
    const r = await svc(['cobro', 'ver', String(a.id)], {
      env: { ...sb.env, SVC_RETRY_BACKOFF_MS: '1' },
    });
    await sb.api('DELETE', '/_sandbox/fallas');
    expect(r.exitCode).toBe(6);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(
      `la respuesta de GET /v1/cobros/${a.id} (HTTP 200) tiene id ${b.id}, no ${a.id}: no es la del registro pedido`,
    );
  });
});

describe('wording', () => {
  it('a 429 with Retry-After says when to try again', async () => {
    await sb.api('POST', '/_sandbox/fallas', {
      method: 'GET',
      path: '/v1/cuenta',
      action: 'respond',
      status: 429,
      headers: { 'Retry-After': '30' },
      body: { error: 'rate_limited', message: 'demasiados pedidos' },
      count: 3,
    });
    const r = await svc(['cuenta'], { env: sb.env });
    await sb.api('DELETE', '/_sandbox/fallas');
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(
      /^→ el servicio pide esperar 30 s \(Retry-After\): probá de nuevo a partir de las \d{2}:\d{2}:\d{2}$/m,
    );
  });

  it('an unanswered GET says how long svc waited in all, not one attempt', async () => {
    await sb.api('POST', '/_sandbox/fallas', {
      method: 'GET',
      path: '/v1/cuenta',
      action: 'delay',
      delay_ms: 1500,
      count: 3,
    });
    const r = await svc(['cuenta'], {
      env: { ...sb.env, SVC_TIMEOUT_MS: '200', SVC_RETRY_BACKOFF_MS: '1' },
    });
    await sb.api('DELETE', '/_sandbox/fallas');
    expect(r.exitCode).toBe(6);
    expect(r.stderr).toMatch(
      /^error: GET \/v1\/cuenta: sin respuesta de 127\.0\.0\.1:\d+ en \d+\.\d s \(3 intentos de 0\.2 s\)$/m,
    );
  });

  it('a request without an answer yet prints one line on stderr saying what svc waits for', async () => {
    await sb.api('POST', '/_sandbox/fallas', {
      method: 'GET',
      path: '/v1/cuenta',
      action: 'delay',
      delay_ms: 600,
    });
    const r = await svc(['cuenta', '--json'], { env: { ...sb.env, SVC_WAIT_NOTICE_MS: '100' } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /^esperando la respuesta de 127\.0\.0\.1:\d+ a GET \/v1\/cuenta \(0\.1 s; hasta 15 s por intento\)…$/m,
    );
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('an amount of 13 digits in a reply', () => {
  it('is named for its size, not for its decimals', async () => {
    const c = (await sb.api('POST', '/v1/cobros', { concepto: 'X', monto: '1.00' })).body.data;
    await sb.api('POST', '/_sandbox/fallas', {
      method: 'GET',
      path: `/v1/cobros/${c.id}`,
      action: 'respond',
      status: 200,
      body: { data: { ...c, monto: '1234567890123.00' } },
    });
    const r = await svc(['cobro', 'ver', String(c.id)], { env: sb.env });
    expect(r.exitCode).toBe(6);
    expect(r.stderr).toContain('monto decimal de hasta 12 cifras enteras y 2 decimales');
  });
});
