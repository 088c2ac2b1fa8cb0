// svc diagnostico: what svc would use, where each setting came from, and whether the
// service answers, in lines a person pastes into a ticket; secrets planted everywhere
// never come out (the key only as its last four characters).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith, expectNoStack } from '../helpers/cli.js';
import { closedPort } from '../helpers/fixtures.js';
import { svc } from '../helpers/inproc.js';
import { startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';

let sb: InProcessSandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(async () => sb?.close());

const PROXY_PASSWORD = 'pw-del-proxy-7c1e';
const SECRET = 'whsec_diagnostico_0123456789abcdef';

/** Nothing secret in what svc printed: the key whole, the secret, the proxy's password. */
function nothingSecret(text: string): void {
  expect(text).not.toContain(sb.api_key);
  expect(text).not.toContain(sb.api_key.slice(9, -4));
  expect(text).not.toContain(SECRET);
  expect(text).not.toContain(SECRET.slice(6, -4));
  expect(text).not.toContain(PROXY_PASSWORD);
  expect(text).not.toContain(Buffer.from(`ana:${PROXY_PASSWORD}`).toString('base64'));
}

describe('svc diagnostico', () => {
  it('says what svc uses and where from, that the service answers; nothing secret', async () => {
    const dir = configWith({
      oficina: {
        base_url: sb.base_url,
        test_key: sb.api_key,
        webhook_secret: SECRET,
        proxy: `http://ana:${PROXY_PASSWORD}@proxy.example:3128`,
      },
    });
    const r = await svc(['diagnostico'], { env: { SVC_CONFIG_DIR: dir } });
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    const line = (key: string) => r.stdout.split('\n').find((l) => l.startsWith(`${key}\t`));
    expect(line('perfil')).toBe('perfil\toficina (perfil)');
    expect(line('dirección')).toBe(`dirección\t${sb.base_url} (perfil)`);
    expect(line('clave')).toBe(`clave\ttest …${sb.api_key.slice(-4)} (perfil)`);
    expect(line('proxy')).toBe(
      'proxy\thttp://***@proxy.example:3128 (la opción proxy del perfil), no se usa para esta dirección',
    );
    expect(line('certificados')).toBe('certificados\tlos de Node');
    expect(line('servicio')).toMatch(/^servicio\tok en \d+ ms \(\/v1\/salud\)$/);
    expect(line('cuenta')).toMatch(/^cuenta\tok en \d+ ms: /);
    expect(line('reloj')).toMatch(/^reloj\t[+-]?\d+ s respecto del servicio$/);
    expect(line('secreto de firma')).toBe('secreto de firma\tconfigurado (perfil)');
    nothingSecret(r.stdout + r.stderr);

    const json = await svc(['diagnostico', '--json', '--debug'], {
      env: { SVC_CONFIG_DIR: dir, HTTPS_PROXY: `http://ana:${PROXY_PASSWORD}@p2.example:8080` },
    });
    expect(json.exitCode, json.stderr).toBe(0);
    const d = JSON.parse(json.stdout);
    expect(d).toMatchObject({
      profile: { name: 'oficina', from: 'perfil' },
      key: { mode: 'test', last4: sb.api_key.slice(-4), from: 'perfil' },
      salud: { ok: true },
      cuenta: { ok: true },
      webhook_secret: { present: true, from: 'perfil' },
      problems: [],
    });
    // The sandbox is plain http on loopback: HTTPS_PROXY is not for it, and the profile's proxy is not used for it.
    expect(d.proxy).toEqual({
      value: 'http://***@proxy.example:3128',
      from: 'la opción proxy del perfil',
      used: false,
    });
    nothingSecret(json.stdout + json.stderr);
  });

  it('the environment and the flags come first, and say so', async () => {
    const r = await svc(['diagnostico', '--json', '--proxy', 'http://flag.example:1'], {
      env: {
        ...sb.env,
        SVC_WEBHOOK_SECRET: SECRET,
        SSL_CERT_FILE: '/etc/empresa/ca.pem',
      },
    });
    const d = JSON.parse(r.stdout);
    expect(d.base_url).toEqual({ value: sb.base_url, from: 'SVC_BASE_URL' });
    expect(d.key).toMatchObject({ from: 'SVC_API_KEY' });
    expect(d.webhook_secret).toEqual({ present: true, from: 'SVC_WEBHOOK_SECRET' });
    expect(d.ca).toEqual({ file: '/etc/empresa/ca.pem', from: 'SSL_CERT_FILE' });
    // Asked for with --proxy, loopback goes through it too: a proxy that is not there is named.
    expect(d.proxy).toEqual({ value: 'http://flag.example:1', from: '--proxy', used: true });
    expect(d.salud.ok).toBe(false);
    expect(d.salud.error).toContain('proxy http://flag.example:1');
    expect(r.exitCode).toBe(6);
    nothingSecret(r.stdout + r.stderr);
  });

  it('a service that is not there: the failing line says what to do, exit 6', async () => {
    const r = await svc(['diagnostico'], {
      env: { SVC_BASE_URL: `http://127.0.0.1:${await closedPort()}`, SVC_API_KEY: sb.api_key },
    });
    expect(r.exitCode).toBe(6);
    expect(r.stdout).toMatch(
      /^servicio\tfalla: no se pudo conectar con .*¿está corriendo el servicio o `svc sandbox`\?$/m,
    );
    expect(r.stdout).toMatch(/^cuenta\tno se probó$/m);
    expectNoStack(r.stderr);
  });

  it('a refused key and no address each say what to do, exit 1', async () => {
    const refused = await svc(['diagnostico'], {
      env: { ...sb.env, SVC_API_KEY: 'svc_test_no_es_una_clave_buena_1234' },
    });
    expect(refused.exitCode).toBe(1);
    expect(refused.stdout).toMatch(/^cuenta\tfalla: .*→ revisá la clave/m);
    expect(refused.stdout).not.toContain('no_es_una_clave_buena');

    const nothing = await svc(['diagnostico'], { env: {} });
    expect(nothing.exitCode).toBe(1);
    expect(nothing.stdout).toMatch(/^dirección\tninguna → `svc login --base-url/m);
    expect(nothing.stdout).toMatch(/^clave\tninguna → `svc login` o SVC_API_KEY$/m);
  });
});
