// svc behind a company's proxy, end to end: a real proxy process on loopback
// (test/helpers/http-proxy.ts) in front of the sandbox, reached over https as
// `servicio.test` (a name only the proxy resolves, so a request that skipped it
// fails instead of passing unseen) through a TLS front with a certificate from a
// CA made here. CONNECT for https, the whole address for plain http, a proxy
// that asks for credentials, one that refuses, one that is not there; the
// credentials never printed.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Client, networkFromEnv } from '../../src/index.js';
import { configWith, expectNoStack, profilesIn, svcSpawned, tempDir } from '../helpers/cli.js';
import {
  hasOpenssl,
  makeCerts,
  startTlsFront,
  type TestCerts,
  type TlsFront,
} from '../helpers/certs.js';
import { closedPort } from '../helpers/fixtures.js';
import { startProxy, type TestProxy } from '../helpers/http-proxy.js';
import { svc } from '../helpers/inproc.js';
import { startMcpInProcess } from '../helpers/mcp.js';
import { listenInProcess, post, startReceiver, type Receiver } from '../helpers/receiver.js';
import { notificationHeaders } from '../../src/webhooks/signature.js';
import { startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';

const PASSWORD = 'clave-del-proxy-9f3a';
const BASIC = Buffer.from(`ana:${PASSWORD}`).toString('base64');

let sb: InProcessSandbox;
let certs: TestCerts;
let front: TlsFront;
let proxy: TestProxy;
let authProxy: TestProxy;
let refusing: TestProxy;
let app: Receiver;
/** The sandbox over https, by a name only the proxy can reach. */
let service: string;

beforeAll(async () => {
  sb = await startSandbox();
  certs = makeCerts();
  front = await startTlsFront(certs.good, Number(new URL(sb.base_url).port));
  service = `https://servicio.test:${front.port}`;
  proxy = await startProxy();
  authProxy = await startProxy({ credentials: `ana:${PASSWORD}` });
  refusing = await startProxy({ refuseConnect: 403 });
  app = await startReceiver();
}, 30_000);
afterAll(async () => {
  await Promise.all([
    front?.close(),
    proxy?.close(),
    authProxy?.close(),
    refusing?.close(),
    app?.close(),
  ]);
  await sb?.close();
});
beforeEach(() => {
  for (const p of [proxy, authProxy, refusing]) p.seen.length = 0;
});

/** The sandbox's env over https through `servicio.test`, trusting the test CA. */
const env = (extra: Record<string, string> = {}) => ({
  ...sb.env,
  SVC_BASE_URL: service,
  SSL_CERT_FILE: certs.ca.certFile,
  ...extra,
});

/** Nothing of the proxy's password, plain or as Basic, anywhere in what svc printed. */
function noPassword(...texts: string[]): void {
  for (const t of texts) {
    expect(t).not.toContain(PASSWORD);
    expect(t).not.toContain(BASIC);
    expect(t).not.toContain('ana:');
  }
}

describe.skipIf(!hasOpenssl())('API calls through the proxy', () => {
  it.each(['HTTPS_PROXY', 'https_proxy', 'ALL_PROXY', 'all_proxy'])(
    'https goes through %s with CONNECT',
    async (name) => {
      const r = await svc(['salud'], { env: env({ [name]: proxy.url }) });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toContain('svc-sandbox');
      expect(proxy.seen).toEqual([{ method: 'CONNECT', target: `servicio.test:${front.port}` }]);
    },
  );

  it('every call of a command goes through it: a list and a write', async () => {
    const created = await svc(
      ['cobro', 'crear', '--monto', '12.50', '--concepto', 'Por el proxy', '--json'],
      {
        env: env({ HTTPS_PROXY: proxy.url }),
      },
    );
    expect(created.exitCode, created.stderr).toBe(0);
    const listed = await svc(['cobro', 'listar', '--json'], {
      env: env({ HTTPS_PROXY: proxy.url }),
    });
    expect(listed.exitCode, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('Por el proxy');
    expect(proxy.seen.length).toBeGreaterThanOrEqual(2);
    expect(proxy.seen.every((s) => s.method === 'CONNECT')).toBe(true);
  });

  it('plain http through --proxy goes as the whole address (loopback only when asked)', async () => {
    const straight = await svc(['salud'], { env: { ...sb.env, HTTP_PROXY: proxy.url } });
    expect(straight.exitCode, straight.stderr).toBe(0);
    expect(proxy.seen).toEqual([]);
    const asked = await svc(['salud', '--proxy', proxy.url], { env: sb.env });
    expect(asked.exitCode, asked.stderr).toBe(0);
    expect(proxy.seen).toEqual([{ method: 'GET', target: `${sb.base_url}/v1/salud` }]);
  });

  it('NO_PROXY sends a host straight even past --proxy', async () => {
    const r = await svc(['salud', '--proxy', proxy.url], {
      env: { ...sb.env, NO_PROXY: 'intranet,127.0.0.1' },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(proxy.seen).toEqual([]);
  });

  it('a proxy in the profile is used; the environment and the flag come first, as --debug shows', async () => {
    const dir = configWith({
      oficina: { base_url: service, test_key: sb.api_key, proxy: proxy.url },
    });
    const base = { SVC_CONFIG_DIR: dir, SSL_CERT_FILE: certs.ca.certFile };
    const fromProfile = await svc(['salud', '--debug'], { env: base });
    expect(fromProfile.exitCode, fromProfile.stderr).toBe(0);
    expect(fromProfile.stderr).toContain(`red: proxy ${proxy.url} (de la opción proxy del perfil)`);
    expect(proxy.seen).toHaveLength(1);

    const dead = `http://127.0.0.1:${await closedPort()}`;
    const fromEnv = await svc(['salud', '--debug'], { env: { ...base, HTTPS_PROXY: dead } });
    expect(fromEnv.exitCode).toBe(6);
    expect(fromEnv.stderr).toContain(`red: proxy ${dead} (de HTTPS_PROXY)`);

    const fromFlag = await svc(['salud', '--debug', '--proxy', proxy.url], {
      env: { ...base, HTTPS_PROXY: dead },
    });
    expect(fromFlag.exitCode, fromFlag.stderr).toBe(0);
    expect(fromFlag.stderr).toContain(`red: proxy ${proxy.url} (de --proxy)`);
    expect(fromFlag.stderr).toContain(`--> por el proxy ${proxy.url}`);
    expect(proxy.seen).toHaveLength(2);
  });

  it('svc login --proxy keeps the proxy in the profile for later commands', async () => {
    const dir = tempDir('svc-config-');
    const withUrl = proxy.url.replace('://', `://ana:${PASSWORD}@`);
    const login = await svc(
      ['login', '--with-key-stdin', '--base-url', service, '--proxy', withUrl],
      {
        env: { SVC_CONFIG_DIR: dir, SSL_CERT_FILE: certs.ca.certFile },
        input: `${sb.api_key}\n`,
      },
    );
    expect(login.exitCode, login.stderr).toBe(0);
    expect(login.stderr).toContain(
      `proxy guardado en el perfil: ${proxy.url.replace('://', '://***@')}`,
    );
    noPassword(login.stdout, login.stderr);
    expect(profilesIn(dir).default.proxy).toBe(withUrl);
    expect(proxy.seen).toHaveLength(1);
    const later = await svc(['salud'], {
      env: { SVC_CONFIG_DIR: dir, SSL_CERT_FILE: certs.ca.certFile },
    });
    expect(later.exitCode, later.stderr).toBe(0);
    expect(proxy.seen).toHaveLength(2);
    expect(proxy.seen[1]!.auth).toBe(`Basic ${Buffer.from(`ana:${PASSWORD}`).toString('base64')}`);
  });

  it('the client library goes through the proxy with networkFromEnv()', async () => {
    const client = new Client({
      baseUrl: service,
      apiKey: sb.api_key,
      network: networkFromEnv({ HTTPS_PROXY: proxy.url, SSL_CERT_FILE: certs.ca.certFile }),
    });
    const { http } = await client.cuenta();
    expect(http).toBe(200);
    expect(proxy.seen).toEqual([{ method: 'CONNECT', target: `servicio.test:${front.port}` }]);
  });

  it('a proxy that asks for credentials: 407 said so; with them in its address it works, never printed', async () => {
    const without = await svc(['salud'], { env: env({ HTTPS_PROXY: authProxy.url }) });
    expect(without.exitCode).toBe(6);
    expect(without.stderr).toContain(`el proxy ${authProxy.url} pidió autenticación (407)`);
    expect(without.stderr).toContain('HTTPS_PROXY');
    expectNoStack(without.stderr);

    const withUrl = authProxy.url.replace('://', `://ana:${PASSWORD}@`);
    const shown = authProxy.url.replace('://', '://***@');
    const wrong = await svc(['salud', '--json'], {
      env: env({ HTTPS_PROXY: authProxy.url.replace('://', '://ana:otra@') }),
    });
    expect(wrong.exitCode).toBe(6);
    expect(wrong.stderr).toContain(`el proxy ${shown} pidió autenticación (407) y no aceptó`);
    expect(JSON.parse(wrong.stdout || wrong.stderr)).toBeTruthy();

    const ok = await svc(['salud', '--debug'], { env: env({ HTTPS_PROXY: withUrl }) });
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(ok.stderr).toContain(`red: proxy ${shown} (de HTTPS_PROXY)`);
    expect(authProxy.seen.at(-1)).toEqual({
      method: 'CONNECT',
      target: `servicio.test:${front.port}`,
      auth: `Basic ${BASIC}`,
    });
    noPassword(without.stdout, without.stderr, wrong.stdout, wrong.stderr, ok.stdout, ok.stderr);

    // A failure through it names the proxy without the password too.
    const failed = await svc(['cobro', 'ver', '999999', '--proxy', withUrl, '--debug'], {
      env: { ...sb.env, SVC_BASE_URL: `https://servicio.test:${await closedPort()}` },
    });
    expect(failed.exitCode).toBe(6);
    noPassword(failed.stdout, failed.stderr);
  });

  it('a proxy that is not there is named, not the service', async () => {
    const port = await closedPort();
    const r = await svc(['salud'], { env: env({ HTTPS_PROXY: `http://127.0.0.1:${port}` }) });
    expect(r.exitCode).toBe(6);
    expect(r.stderr).toContain(
      `el proxy http://127.0.0.1:${port} no respondió (conexión rechazada); revisá HTTPS_PROXY`,
    );
    expect(r.stderr).not.toContain('servicio.test');
    expectNoStack(r.stderr);
  });

  it('a proxy that refuses the tunnel says so with its status', async () => {
    const r = await svc(['salud', '--json'], { env: env({ HTTPS_PROXY: refusing.url }) });
    expect(r.exitCode).toBe(6);
    expect(r.stderr).toContain(
      `el proxy ${refusing.url} no abrió el camino a servicio.test:${front.port} (HTTP 403)`,
    );
    expect(refusing.seen).toHaveLength(1);
  });

  it('the built CLI goes through the proxy too (one process)', async () => {
    const r = await svcSpawned(['salud'], { env: env({ HTTPS_PROXY: proxy.url }) });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(proxy.seen).toEqual([{ method: 'CONNECT', target: `servicio.test:${front.port}` }]);
  });
});

describe('svc mcp through the proxy', () => {
  it('a tool’s call goes through --proxy given to svc mcp, and through HTTPS_PROXY', async () => {
    const flagged = await startMcpInProcess(['--proxy', proxy.url], sb.env);
    try {
      const r = (await flagged.client.callTool({ name: 'salud', arguments: {} })) as {
        isError?: boolean;
      };
      expect(r.isError, flagged.stderr()).toBeFalsy();
      expect(proxy.seen).toContainEqual({ method: 'GET', target: `${sb.base_url}/v1/salud` });
    } finally {
      await flagged.close();
    }
    proxy.seen.length = 0;
    const fromEnv = await startMcpInProcess([], env({ HTTPS_PROXY: proxy.url }));
    try {
      const r = (await fromEnv.client.callTool({ name: 'cuenta', arguments: {} })) as {
        isError?: boolean;
      };
      expect(r.isError, fromEnv.stderr()).toBeFalsy();
      expect(proxy.seen.length).toBeGreaterThan(0);
      expect(proxy.seen.every((s) => s.method === 'CONNECT')).toBe(true);
    } finally {
      await fromEnv.close();
    }
  });
});

describe('notifications through the proxy', () => {
  const SECRET = 'whsec_proxy_0123456789abcdef';
  /** The app by a name only the proxy resolves. */
  const appUrl = () => `http://app.test:${app.port}/hook`;

  it('webhook trigger goes through HTTP_PROXY, the whole address as the path', async () => {
    const before = app.received.length;
    const r = await svc(['webhook', 'trigger', 'payment.approved', '--forward-to', appUrl()], {
      env: { SVC_WEBHOOK_SECRET: SECRET, HTTP_PROXY: proxy.url },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(proxy.seen).toEqual([{ method: 'POST', target: appUrl() }]);
    expect(app.received.length).toBe(before + 1);
  });

  it('webhook trigger through a proxy that asks for credentials says so', async () => {
    const r = await svc(['webhook', 'trigger', 'payment.approved', '--forward-to', appUrl()], {
      env: { SVC_WEBHOOK_SECRET: SECRET, HTTP_PROXY: authProxy.url },
    });
    expect(r.exitCode).not.toBe(0);
    expect(r.stdout + r.stderr).toContain(`el proxy ${authProxy.url} pidió autenticación (407)`);
  });

  it('webhook probar sends every case through the proxy', async () => {
    const r = await svc(['webhook', 'probar', '--forward-to', appUrl(), '--json'], {
      env: { SVC_WEBHOOK_SECRET: SECRET, http_proxy: proxy.url },
    });
    expect([0, 1]).toContain(r.exitCode);
    expect(proxy.seen.length).toBeGreaterThan(3);
    expect(proxy.seen.every((s) => s.method === 'POST' && s.target === appUrl())).toBe(true);
  });

  it('webhook listen forwards through the proxy', async () => {
    const listen = await listenInProcess(['--forward-to', appUrl()], {
      SVC_WEBHOOK_SECRET: SECRET,
      HTTP_PROXY: proxy.url,
    });
    try {
      const body = JSON.stringify({ event: 'payment.approved', id: 1 });
      const sent = await post(
        listen.url,
        body,
        notificationHeaders(SECRET, 'payment.approved', body),
      );
      expect(sent.status).toBe(200);
      await listen.waitLines(1);
      expect(proxy.seen).toEqual([{ method: 'POST', target: appUrl() }]);
    } finally {
      await listen.stop();
    }
  });

  it('webhook probar names a dead proxy', async () => {
    const port = await closedPort();
    const r = await svc(['webhook', 'probar', '--forward-to', appUrl()], {
      env: { SVC_WEBHOOK_SECRET: SECRET, HTTP_PROXY: `http://127.0.0.1:${port}` },
    });
    expect(r.exitCode).toBe(6);
    expect(r.stderr).toContain(`el proxy http://127.0.0.1:${port} no respondió`);
  });
});
