// svc api end to end against a real sandbox: raw passthrough, fields, --input, exit
// codes from the status, non-JSON replies, live guard.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoStack, svcSpawned, tempDir } from '../../helpers/cli.js';
// Cases run in-process through main() (svc); spawned() runs the built binary, once per behaviour.
import { svc } from '../../helpers/inproc.js';
import { startSandbox, type Sandbox } from '../../helpers/sandbox.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(async () => {
  await sb?.stop();
});

const posts = async (path: string) =>
  ((await sb.api('GET', '/_sandbox/log')).body.data as { method: string; path: string }[]).filter(
    (e) => e.method === 'POST' && e.path === path,
  ).length;

describe('svc api', () => {
  it('GET prints the whole body as received, pretty, exit 0', async () => {
    const r = await svcSpawned(['api', 'GET', '/v1/cuenta'], { env: sb.env });
    expect(r.exitCode).toBe(0);
    const body = JSON.parse(r.stdout);
    expect(Object.keys(body)).toEqual(['data']);
    expect(body.data).toHaveProperty('puede_cobrar', true);
    expect(r.stdout).toContain('\n  "data": {');
    // salud is public: works with no key at all
    const salud = await svc(['api', 'get', '/v1/salud'], { env: { SVC_BASE_URL: sb.base_url } });
    expect(salud.exitCode).toBe(0);
    expect(JSON.parse(salud.stdout)).toHaveProperty('ok', true);
  });

  it('POST with --field builds a JSON body (k=v strings, k:=json raw)', async () => {
    const r = await svc(
      [
        'api',
        'POST',
        '/v1/cobros',
        '-f',
        'concepto=Desde api',
        '-f',
        'monto=12.30',
        '--field',
        'tarjeta:=false',
      ],
      { env: sb.env },
    );
    expect(r.exitCode).toBe(0);
    const c = JSON.parse(r.stdout).data;
    expect(c).toMatchObject({
      concepto: 'Desde api',
      monto: '12.30',
      medios: { tarjeta: false, qr: true, transferencia: true },
    });
    // GET fields become the query
    const q = await svc(
      ['api', 'GET', '/v1/cobros', '-f', 'q=Desde api', '-f', 'estado=PENDIENTE'],
      { env: sb.env },
    );
    expect(q.exitCode).toBe(0);
    expect(JSON.parse(q.stdout).data.map((x: { id: number }) => x.id)).toEqual([c.id]);
  });

  it('--input FILE and --input - send the body as is', async () => {
    const dir = tempDir();
    const file = join(dir, 'body.json');
    writeFileSync(file, JSON.stringify({ concepto: 'Desde archivo', monto: '5.00' }));
    const a = await svc(['api', 'POST', '/v1/cobros', '--input', file], { env: sb.env });
    expect(a.exitCode).toBe(0);
    expect(JSON.parse(a.stdout).data.concepto).toBe('Desde archivo');
    const b = await svc(['api', 'POST', '/v1/cobros', '--input', '-'], {
      env: sb.env,
      input: '{"concepto":"Desde stdin","monto":"6.00"}',
    });
    expect(b.exitCode).toBe(0);
    expect(JSON.parse(b.stdout).data.concepto).toBe('Desde stdin');
    // --no-input (global) and --input (of api) do not clash
    const c = await svc(['api', 'POST', '/v1/cobros', '--no-input', '--input', file], {
      env: sb.env,
    });
    expect(c.exitCode).toBe(0);
    const bad = await svc(['api', 'POST', '/v1/cobros', '--input', '-'], {
      env: sb.env,
      input: 'not json',
    });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/no es JSON válido/);
    const missing = await svc(['api', 'POST', '/v1/cobros', '--input', join(dir, 'nope.json')], {
      env: sb.env,
    });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toMatch(/no existe/);
  });

  it('exit code follows the status, and error bodies are printed whole', async () => {
    const notFound = await svc(['api', 'GET', '/v1/cobros/99999'], { env: sb.env });
    expect(notFound.exitCode).toBe(5);
    expect(JSON.parse(notFound.stdout)).toHaveProperty('error', 'not_found');
    const noRoute = await svc(['api', 'GET', '/v1/nada'], { env: sb.env });
    expect(noRoute.exitCode).toBe(5);
    const refused = await svc(['api', 'POST', '/v1/cobros', '-f', 'concepto=X', '-f', 'monto=-5'], {
      env: sb.env,
    });
    expect(refused.exitCode).toBe(1);
    expect(JSON.parse(refused.stdout)).toHaveProperty('error', 'create_failed');
    const unauthorized = await svc(['api', 'GET', '/v1/cuenta'], {
      env: { ...sb.env, SVC_API_KEY: 'svc_test_doesnotexist0000' },
    });
    expect(unauthorized.exitCode).toBe(3);
    expect(JSON.parse(unauthorized.stdout)).toHaveProperty('error', 'unauthorized');
    const notReady = await svc(['api', 'POST', '/v1/cobros', '-f', 'concepto=X', '-f', 'monto=1'], {
      env: { ...sb.env, SVC_API_KEY: sb.api_key_no_listo },
    });
    expect(notReady.exitCode).toBe(4);
    for (const r of [notFound, refused, unauthorized, notReady]) expectNoStack(r.stderr);
  });

  it('a reply that is not JSON is printed raw, exit 6', async () => {
    await sb.api('POST', '/_sandbox/fallas', {
      method: 'GET',
      path: '/v1/cuenta',
      action: 'respond',
      status: 502,
      body: '<html>bad gateway</html>',
      count: 3,
    });
    const r = await svc(['api', 'GET', '/v1/cuenta'], {
      env: { ...sb.env, SVC_RETRY_BACKOFF_MS: '1' },
    });
    expect(r.exitCode).toBe(6);
    expect(r.stdout).toBe('<html>bad gateway</html>\n');
    expect(r.stderr).toMatch(/no es JSON/);
    await sb.api('DELETE', '/_sandbox/fallas');
  });

  it('refuses a bad method, a path without / and --field with --input, before any request', async () => {
    const env = { ...sb.env, SVC_BASE_URL: 'http://127.0.0.1:9' };
    expect((await svc(['api', 'FETCH', '/v1/cuenta'], { env })).exitCode).toBe(2);
    const p = await svc(['api', 'GET', 'v1/cuenta'], { env });
    expect(p.exitCode).toBe(2);
    expect(p.stderr).toMatch(/tiene que empezar con \//);
    expect((await svc(['api', 'GET', '//evil.example/x'], { env })).exitCode).toBe(2);
    const both = await svc(['api', 'POST', '/v1/cobros', '-f', 'a=1', '--input', '-'], {
      env,
      input: '{}',
    });
    expect(both.exitCode).toBe(2);
    expect((await svc(['api', 'POST', '/v1/cobros', '-f', 'sin-igual'], { env })).exitCode).toBe(2);
  });

  it('live mode: a non-GET needs --yes without a terminal; GET does not', async () => {
    const live = { ...sb.env, SVC_API_KEY: 'svc_live_0123456789abcdef0123456789abcdef' };
    const before = await posts('/v1/cobros');
    const r = await svc(['api', 'POST', '/v1/cobros', '-f', 'concepto=X', '-f', 'monto=1'], {
      env: live,
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/MODO LIVE/);
    expect(r.stderr).toMatch(/POST \/v1\/cobros necesita --yes/);
    expect(await posts('/v1/cobros')).toBe(before);
    const g = await svc(['api', 'GET', '/v1/cuenta'], { env: live });
    expect(g.stderr).toMatch(/MODO LIVE/);
    expect(g.exitCode).toBe(3); // the sandbox refuses live keys
  });

  it('a POST is never retried, even on a 503', async () => {
    const id = JSON.parse(
      (
        await svc(['api', 'POST', '/v1/cobros', '-f', 'concepto=R', '-f', 'monto=1'], {
          env: sb.env,
        })
      ).stdout,
    ).data.id;
    await sb.api('POST', '/_sandbox/fallas', {
      method: 'POST',
      path: `/v1/cobros/${id}/sync`,
      action: 'respond',
      status: 503,
      body: { error: 'unavailable', message: 'try later' },
      count: 5,
    });
    const r = await svc(['api', 'POST', `/v1/cobros/${id}/sync`], {
      env: { ...sb.env, SVC_RETRY_BACKOFF_MS: '1' },
    });
    // Not a refusal the seed names: the sync may have been done.
    expect(r.exitCode).toBe(6);
    expect(r.stderr).toContain(`POST /v1/cobros/${id}/sync puede haberse hecho o no`);
    expect(r.stderr).toContain(`→ para verificar: svc cobro ver ${id}`);
    expect(await posts(`/v1/cobros/${id}/sync`)).toBe(1);
    await sb.api('DELETE', '/_sandbox/fallas');
  });
});
