// The client library against a scripted HTTP server on loopback: retries, faults,
// envelopes kept exactly as sent. Unscripted calls fail the test.
import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, NetworkError } from '../../src/api/service-errors.js';
import {
  checkBaseUrl,
  Client,
  InsecureBaseUrlError,
  parseRetryAfter,
} from '../../src/api/client.js';
import { tempDir } from '../helpers/cli.js';
import { closeServer, onLoopback } from '../helpers/loopback.js';

type Step = (req: IncomingMessage, res: ServerResponse, body: string) => void;

let server: Server | undefined;
let seen: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] = [];

async function serve(steps: Step[]): Promise<string> {
  seen = [];
  let i = 0;
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const step = steps[i++];
      if (!step) {
        res.writeHead(599).end('unexpected call');
        return;
      }
      step(req, res, body);
    });
  });
  return onLoopback(server);
}

afterEach(async () => {
  const s = server;
  server = undefined;
  await closeServer(s);
});

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Step =>
  (_q, res) =>
    res
      .writeHead(status, { 'content-type': 'application/json', ...headers })
      .end(typeof body === 'string' ? body : JSON.stringify(body));

const cobro = {
  id: 1,
  codigo: 'C-1',
  concepto: 'x',
  monto: '10.00',
  monto_cobrado: '0.00',
  estado: 'PENDIENTE',
  url: 'https://x/pagar/C-1',
  cvu: null,
  qr: null,
  referencia: null,
  medios: { tarjeta: true, qr: true, transferencia: true },
  vencimiento: '2026-12-01 10:00:00',
  success_url: null,
  error_url: null,
  created_at: '2026-11-22 10:00:00',
  updated_at: '2026-11-22 10:00:00',
};

const client = (baseUrl: string, extra = {}) =>
  new Client({
    baseUrl,
    apiKey: 'svc_test_abcdefgh12345678',
    backoffMs: 1,
    timeoutMs: 2000,
    ...extra,
  });

describe('client', () => {
  it('returns { http, data } with the body exactly as sent, and sends the headers', async () => {
    const raw = `{"data":{"zz":"extra field kept",${JSON.stringify(cobro).slice(1)}}`;
    const base = await serve([json(200, raw)]);
    const res = await client(base).verCobro(1);
    expect(res.http).toBe(200);
    expect(JSON.stringify(res.data)).toBe(raw);
    expect(seen[0]!.headers.authorization).toBe('Bearer svc_test_abcdefgh12345678');
    expect(seen[0]!.headers['user-agent']).toMatch(/^svc\/\d+\.\d+\.\d+/);
    expect(seen[0]!.url).toBe('/v1/cobros/1');
  });

  it("a list's pages share one connection; a write opens its own", async () => {
    const base = await serve([
      json(200, { data: [cobro], next: '/v1/cobros?pagina=2' }),
      json(200, { data: [{ ...cobro, id: 2 }], next: '/v1/cobros?pagina=3' }),
      json(200, { data: [{ ...cobro, id: 3 }] }),
      json(201, { data: cobro }),
    ]);
    const ports = new Set<number>();
    server!.on('connection', (socket) => ports.add(socket.remotePort!));
    const c = client(base);
    const { data } = await c.iterarCobros();
    expect([...data].map((x) => x.id)).toEqual([1, 2, 3]);
    // Three pages, one connection (over https: one TLS handshake, not one a page).
    expect(ports.size).toBe(1);
    await c.crearCobro({ concepto: 'x', monto: '10.00' });
    // A write never goes on a kept connection the service may have just closed.
    expect(ports.size).toBe(2);
  });

  it('sends JSON with Content-Type on POST and never retries a POST', async () => {
    const base = await serve([json(503, { error: 'x', message: 'busy' }, { 'retry-after': '0' })]);
    // A 503 is no refusal the seed names: the refund may have been made.
    await expect(client(base).devolver(1, { monto: '1.00' })).rejects.toMatchObject({
      name: 'NetworkError',
      failure: 'http_error',
      sent: true,
      http: 503,
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(seen[0]!.body)).toEqual({ monto: '1.00' });
  });

  it('retries a GET on 503 with Retry-After, 429 and 500, then succeeds', async () => {
    const ok = json(200, { data: cobro });
    const base = await serve([
      json(503, '<html>busy</html>', { 'retry-after': '0' }),
      json(429, { error: 'rate', message: 'slow' }),
      ok,
    ]);
    const res = await client(base, { getAttempts: 3 }).verCobro(1);
    expect(res.data.data.id).toBe(1);
    expect(seen).toHaveLength(3);
  });

  it('gives up after its attempts and reports the last failure', async () => {
    const base = await serve([
      json(500, { error: 'boom', message: 'internal' }),
      json(500, { error: 'boom', message: 'internal' }),
    ]);
    const err = await client(base, { getAttempts: 2 })
      .cuenta()
      .catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.http).toBe(500);
    expect(seen).toHaveLength(2);
  });

  it('does not wait for a Retry-After longer than its budget', async () => {
    const base = await serve([
      json(503, { error: 'x', message: 'later' }, { 'retry-after': '3600' }),
    ]);
    const err = await client(base)
      .cuenta()
      .catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(seen).toHaveLength(1);
  });

  it('turns error bodies into ApiError with http, error and message', async () => {
    const base = await serve([json(404, { error: 'not_found', message: 'resource not found' })]);
    const err = await client(base)
      .verCobro(9)
      .catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect([err.http, err.error, err.message]).toEqual([404, 'not_found', 'resource not found']);
  });

  it.each([
    [
      'an HTML 502 page',
      (_q: IncomingMessage, r: ServerResponse) =>
        r
          .writeHead(502, { 'content-type': 'text/html' })
          .end('<html><body>Bad Gateway</body></html>'),
      'not_json',
    ],
    [
      'a 200 that is not JSON',
      (_q: IncomingMessage, r: ServerResponse) => r.writeHead(200).end('ok'),
      'not_json',
    ],
    [
      'an empty body',
      (_q: IncomingMessage, r: ServerResponse) => r.writeHead(200).end(),
      'empty_body',
    ],
    ['JSON of the wrong shape', json(200, { data: { id: 'one' } }), 'bad_shape'],
    ['a cut connection', (q: IncomingMessage) => q.socket.destroy(), 'connection_reset'],
  ])('a reply that is %s becomes a NetworkError', async (_name, step, failure) => {
    const base = await serve([step as Step]);
    const err = await client(base, { getAttempts: 1 })
      .verCobro(1)
      .catch((e) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.failure).toBe(failure);
  });

  it('bad_shape names a field sent null or as a number apart from one left out', async () => {
    const cobro = {
      id: 1,
      codigo: 'K7QM3XW9PA',
      concepto: 'x',
      monto: '1.00',
      monto_cobrado: '0.00',
      estado: 'PENDIENTE',
      url: 'https://pagar.example/K7QM3XW9PA',
      cvu: null,
      qr: null,
      referencia: null,
      medios: { tarjeta: true, qr: true, transferencia: true },
      vencimiento: null,
      success_url: null,
      error_url: null,
      created_at: '2026-11-26 10:00:00',
      updated_at: '2026-11-26 10:00:00',
    };
    const { created_at: _left, ...withoutCreated } = cobro;
    const base = await serve([
      json(200, { data: { ...cobro, concepto: null } }),
      json(200, { data: { ...cobro, id: '1' } }),
      json(200, { data: withoutCreated }),
    ]);
    const messages = [];
    for (let i = 0; i < 3; i++)
      messages.push(
        (
          (await client(base, { getAttempts: 1 })
            .verCobro(1)
            .catch((e) => e)) as Error
        ).message,
      );
    expect(messages.map((m) => /\((data\.[^)]*\)?)\)$/.exec(m)?.[1])).toEqual([
      'data.concepto: se esperaba string',
      'data.id: se esperaba number',
      'data.created_at: falta (string)',
    ]);
  });

  it('a GET stopped by its caller (a page read ahead, given up) is not retried', async () => {
    let arrived: () => void = () => {};
    const asked = new Promise<void>((resolve) => (arrived = resolve));
    // Held unanswered: only the caller's stop ends it.
    const base = await serve([() => arrived()]);
    const retries: unknown[] = [];
    const stop = new AbortController();
    const c = client(base, {
      getAttempts: 3,
      backoffMs: 1,
      onRetry: (r: unknown) => retries.push(r),
    });
    const res = c.request({ method: 'GET', path: '/v1/cuenta', signal: stop.signal });
    await asked;
    stop.abort();
    expect(await res.catch((e) => e)).toBeInstanceOf(NetworkError);
    expect(retries).toEqual([]);
    expect(seen).toHaveLength(1);
  });

  it('times out a slow reply', async () => {
    const base = await serve([(_q, res) => setTimeout(() => res.end('{}'), 3000)]);
    const err = await client(base, { getAttempts: 1, timeoutMs: 200 })
      .cuenta()
      .catch((e) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.failure).toBe('timeout');
  });

  it('reports connection refused as not sent', async () => {
    const base = await serve([]);
    const s = server;
    server = undefined;
    await closeServer(s);
    const err = await client(base, { getAttempts: 1 })
      .cuenta()
      .catch((e) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect([err.failure, err.sent]).toEqual(['connection_refused', false]);
  });

  it('does not follow redirects (the key would go with them)', async () => {
    const base = await serve([
      (_q, res) => res.writeHead(302, { location: 'http://127.0.0.1:1/steal' }).end(),
    ]);
    const err = await client(base, { getAttempts: 1 })
      .cuenta()
      .catch((e) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect(seen).toHaveLength(1);
  });

  it('https to a server that speaks http: a plain line, not sent, no retry of a handshake that cannot heal by itself', async () => {
    const base = await serve([]);
    let connections = 0;
    server!.on('connection', () => connections++);
    const err = await client(base.replace('http:', 'https:'), { getAttempts: 3 })
      .cuenta()
      .catch((e) => e);
    expect(connections).toBe(1);
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.message).toMatch(
      /^GET \/v1\/cuenta: no se pudo abrir https con 127\.0\.0\.1:\d+: no responde https: ¿la dirección es http:\/\/\?$/,
    );
    expect([err.failure, err.sent]).toEqual(['tls', false]);
    expect(seen).toEqual([]);
  });

  it('https with a certificate nobody vouches for: refused before anything is sent (the key never leaves)', async () => {
    const dir = tempDir('svc-tls-');
    await execa('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ]);
    let requests = 0;
    const tls = createHttpsServer(
      { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
      (_q, res) => {
        requests++;
        res.end('{}');
      },
    );
    await new Promise<void>((r) => tls.listen(0, '127.0.0.1', r));
    try {
      const port = (tls.address() as AddressInfo).port;
      const err = await client(`https://127.0.0.1:${port}`, { getAttempts: 1 })
        .cuenta()
        .catch((e) => e);
      expect(err).toBeInstanceOf(NetworkError);
      expect(err.message).toMatch(
        /no se pudo abrir https con 127\.0\.0\.1:\d+: el certificado de 127\.0\.0\.1 es autofirmado$/,
      );
      expect(err.suggestion).toContain('--cacert ARCHIVO, SSL_CERT_FILE=ARCHIVO');
      expect([err.sent, requests]).toEqual([false, 0]);
    } finally {
      tls.closeAllConnections();
      await new Promise((r) => tls.close(r));
    }
  });

  it("a caller's own fetch is used instead of node:http, same answers and errors", async () => {
    const base = await serve([
      json(200, { data: cobro }),
      json(404, { error: 'not_found', message: 'no existe' }),
    ]);
    const calls: string[] = [];
    const own: typeof fetch = (input, init) => {
      calls.push(`${init?.method} ${String(input)} redirect=${init?.redirect}`);
      return fetch(input, init);
    };
    const c = client(base, { fetch: own });
    expect((await c.verCobro(1)).data).toEqual({ data: cobro });
    const err = await c.verCobro(2).catch((e) => e);
    expect([err instanceof ApiError, err.http, err.error]).toEqual([true, 404, 'not_found']);
    expect(calls).toEqual([
      `GET ${base}/v1/cobros/1 redirect=manual`,
      `GET ${base}/v1/cobros/2 redirect=manual`,
    ]);
  });

  it('a connection closed in the middle of the answer is a cut, not a short body', async () => {
    const base = await serve([
      (_q, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' });
        res.write('{"data":{"id":1');
        setTimeout(() => res.socket?.destroy(), 20);
      },
    ]);
    const err = await client(base, { getAttempts: 1 })
      .cuenta()
      .catch((e) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.failure).toBe('connection_reset');
  });

  it('redacts the key in debug lines', async () => {
    const lines: string[] = [];
    const base = await serve([json(200, { ok: true, name: 's', version: 'v1' })]);
    await client(base, { debug: (l: string) => lines.push(l) }).salud();
    expect(lines.join('\n')).not.toContain('svc_test_abcdefgh12345678');
    expect(lines.join('\n')).toContain('[redactado]');
  });

  it('hides the userinfo of the address in debug lines and in client.address', async () => {
    const lines: string[] = [];
    const base = await serve([json(200, { ok: true, name: 's', version: 'v1' })]);
    const withPassword = base.replace('http://', 'http://alice:pw-UNSEEN-1@');
    const c = client(withPassword, { debug: (l: string) => lines.push(l) });
    await c.salud();
    expect(lines.join('\n')).not.toContain('pw-UNSEEN-1');
    expect(lines.join('\n')).not.toContain('alice');
    expect(lines[0]).toBe(`--> GET ${base.replace('http://', 'http://***@')}/v1/salud`);
    expect(c.address).toBe(base.replace('http://', 'http://***@'));
  });

  // 2 MiB of a valid body against a 1 MiB cap: declared (Content-Length) or streamed.
  const big = `{"data":{"pad":"${'x'.repeat(2 * 1024 * 1024)}"}}`;
  const declared: Step = (_q, res) =>
    res
      .writeHead(200, { 'content-type': 'application/json', 'content-length': String(big.length) })
      .end(big);
  const streamed: Step = (_q, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    for (let i = 0; i < big.length; i += 64 * 1024) res.write(big.slice(i, i + 64 * 1024));
    res.end();
  };
  it.each([
    ['declared with Content-Length', declared, /supera 1 MiB \(anuncia \d+ bytes\)/],
    ['streamed without a length', streamed, /supera 1 MiB, el máximo/],
  ])(
    'a reply over maxReplyBytes, %s, is too_large, sent, and a GET is not retried',
    async (_name, step, message) => {
      // Once through node:http, once through a caller's fetch: one request each, no retry.
      const base = await serve([step, step]);
      for (const own of [undefined, fetch]) {
        const c = client(base, {
          maxReplyBytes: 1024 * 1024,
          getAttempts: 3,
          ...(own ? { fetch: own } : {}),
        });
        const err = await c.cuenta().catch((e) => e);
        expect(err).toBeInstanceOf(NetworkError);
        expect([err.failure, err.sent]).toEqual(['too_large', true]);
        expect(err.message).toMatch(message);
      }
      expect(seen).toHaveLength(2);
    },
  );

  it('the default cap is 256 MiB', async () => {
    const { DEFAULT_MAX_REPLY_BYTES } = await import('../../src/api/client.js');
    expect(DEFAULT_MAX_REPLY_BYTES).toBe(256 * 1024 * 1024);
  });

  it('records every write it sends (sent true once it may have reached the service, false when it surely did not)', async () => {
    const writes: { method: string; path: string; sent: boolean }[] = [];
    const base = await serve([json(201, { data: { id: 1 } })]);
    const c = client(base, { onWrite: (w: (typeof writes)[number]) => writes.push(w) });
    await c.request({ method: 'POST', path: '/v1/cobros', body: {} });
    await c.request({ method: 'GET', path: '/v1/cuenta' }).catch(() => {});
    expect(writes).toEqual([{ method: 'POST', path: '/v1/cobros', sent: true }]);
    const s = server;
    server = undefined;
    await closeServer(s);
    await c.request({ method: 'POST', path: '/v1/cobros', body: {} }).catch(() => {});
    expect(writes[1]).toEqual({ method: 'POST', path: '/v1/cobros', sent: false });
  });
});

describe('checkBaseUrl', () => {
  it('accepts https and loopback http', () => {
    expect(checkBaseUrl('https://api.example.com/')).toBe('https://api.example.com');
    expect(checkBaseUrl('http://127.0.0.1:8787')).toBe('http://127.0.0.1:8787');
    expect(checkBaseUrl('http://localhost:1')).toBe('http://localhost:1');
  });
  it.each([
    'http://api.example.com',
    'http://10.0.0.1',
    'ftp://x',
    'not a url',
    'http://127.0.0.1.evil.com',
  ])('refuses %s', (url) => {
    expect(() => checkBaseUrl(url)).toThrow(InsecureBaseUrlError);
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('5')).toBe(5);
    expect(
      parseRetryAfter(new Date(Date.UTC(2030, 0, 1, 0, 0, 10)).toUTCString(), Date.UTC(2030, 0, 1)),
    ).toBe(10);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
});
