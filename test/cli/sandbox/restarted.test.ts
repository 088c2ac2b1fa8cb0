// A sandbox restarted without --data has new keys: the key in SVC_API_KEY or the
// profile is refused. svc says it is the sandbox that was restarted (exit 3,
// `sandbox_new_keys` under --json) and prints the line that fixes it, for a key from
// the environment or a profile, test or live rehearsal. A key refused by a service
// that is not a sandbox, or a key a sandbox never makes, stays plain `unauthorized`.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith } from '../../helpers/cli.js';
import { svc } from '../../helpers/inproc.js';
import { startSandbox, type Sandbox } from '../../helpers/sandbox.js';

let before: Sandbox;
let after: Sandbox;
let stranger: Server;
let strangerUrl: string;

beforeAll(async () => {
  // The same address, started again without --data: the keys of the first are gone.
  // The first is the built binary, stopped as a process; the second runs through main().
  before = await startSandbox({ spawned: [] });
  const port = new URL(before.base_url).port;
  await before.stop();
  after = await startSandbox({ argv: ['--port', port] });
  // Another service on this machine: its health check names no sandbox, it refuses every key.
  stranger = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/v1/salud')
      return void res.end(JSON.stringify({ ok: true, name: 'otro', version: 'v1' }));
    res.statusCode = 401;
    res.end(JSON.stringify({ error: 'unauthorized', message: 'unknown API key' }));
  });
  await new Promise<void>((resolve) => stranger.listen(0, '127.0.0.1', resolve));
  strangerUrl = `http://127.0.0.1:${(stranger.address() as AddressInfo).port}`;
}, 60_000);
afterAll(async () => {
  await after?.stop();
  await new Promise((resolve) => stranger?.close(resolve));
});

describe('a key of a sandbox that was restarted', () => {
  it('the same address answers, both are the same sandbox address', () => {
    expect(after.base_url).toBe(before.base_url);
    expect(after.api_key).not.toBe(before.api_key);
  });

  it.each([
    [
      'SVC_API_KEY, test',
      () => ({ SVC_BASE_URL: after.base_url, SVC_API_KEY: before.api_key }),
      [],
      'SVC_API_KEY',
      '→ corré `export SVC_API_KEY=svc_test_…` con la clave test que imprimió `svc sandbox` al arrancar; con `svc sandbox --data ARCHIVO` las claves sobreviven a un reinicio',
    ],
    [
      'SVC_API_KEY, live rehearsal',
      () => ({ SVC_BASE_URL: after.base_url, SVC_API_KEY: before.api_key_live! }),
      ['--live'],
      'SVC_API_KEY',
      '→ corré `export SVC_API_KEY=svc_live_…` con la clave live de ensayo que imprimió `svc sandbox` al arrancar; con `svc sandbox --data ARCHIVO` las claves sobreviven a un reinicio',
    ],
    [
      'a profile',
      () => ({
        SVC_CONFIG_DIR: configWith({
          tienda: { base_url: after.base_url, test_key: before.api_key },
        }),
      }),
      [],
      'el perfil "tienda"',
      () =>
        `→ corré \`svc login --base-url ${after.base_url} --profile tienda\` y pegá la clave test que imprimió \`svc sandbox\` al arrancar; con \`svc sandbox --data ARCHIVO\` las claves sobreviven a un reinicio`,
    ],
    [
      'the default profile',
      () => ({
        SVC_CONFIG_DIR: configWith({
          default: { base_url: after.base_url, test_key: before.api_key },
        }),
      }),
      [],
      'el perfil "default"',
      () =>
        `→ corré \`svc login --base-url ${after.base_url}\` y pegá la clave test que imprimió \`svc sandbox\` al arrancar; con \`svc sandbox --data ARCHIVO\` las claves sobreviven a un reinicio`,
    ],
  ])(
    '%s: says the sandbox has new keys and the line that fixes it, exit 3',
    async (_name, env, flags, where, hint) => {
      const r = await svc([...flags, 'cuenta'], { env: env() });
      expect(r.exitCode).toBe(3);
      const lines = r.stderr.split('\n').filter((l) => l && !l.includes('MODO LIVE'));
      expect(lines).toEqual([
        `error: el sandbox de ${after.base_url} no conoce la clave de ${where}: se reinició sin --data y tiene claves nuevas`,
        typeof hint === 'function' ? hint() : hint,
      ]);
      expect(r.stdout).toBe('');
      const json = await svc(['--json', ...flags, 'cuenta'], { env: env() });
      expect(json.exitCode).toBe(3);
      expect(JSON.parse(json.stderr.trim().split('\n').pop()!)).toEqual({
        error: 'sandbox_new_keys',
        message: lines[0]!.slice('error: '.length),
      });
    },
  );

  it("the sandbox's own commands say it too", async () => {
    const r = await svc(['sandbox', 'reloj'], {
      env: { SVC_BASE_URL: after.base_url, SVC_API_KEY: before.api_key },
    });
    expect([r.exitCode, r.stderr.split('\n')[0]]).toEqual([
      3,
      `error: el sandbox de ${after.base_url} no conoce la clave de SVC_API_KEY: se reinició sin --data y tiene claves nuevas`,
    ]);
  });

  it('the new key works', async () => {
    const r = await svc(['cuenta'], { env: after.env });
    expect(r.exitCode, r.stderr).toBe(0);
  });
});

describe('what stays plain unauthorized', () => {
  it.each([
    [
      'a key a sandbox never makes',
      () => ({ SVC_BASE_URL: after.base_url, SVC_API_KEY: 'svc_test_con-guion' }),
    ],
    [
      'a key of another shape than a sandbox makes (32 hex)',
      () => ({ SVC_BASE_URL: after.base_url, SVC_API_KEY: 'svc_test_notarealkey000000' }),
    ],
    [
      'a service that is not a sandbox',
      () => ({ SVC_BASE_URL: strangerUrl, SVC_API_KEY: before.api_key }),
    ],
  ])('%s', async (_name, env) => {
    const r = await svc(['cuenta'], { env: env() });
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toMatch(/^error: unauthorized \(HTTP 401\): /);
    expect(r.stderr).not.toContain('claves nuevas');
    const json = await svc(['--json', 'cuenta'], { env: env() });
    expect(JSON.parse(json.stderr.trim().split('\n').pop()!).error).toBe('unauthorized');
  });
});
