// One table decides the exit code of every configuration problem
// (config/credentials.ts CONFIG_PROBLEMS); under --json each is
// {"error":"config","problem":…}. An unknown profile says so and names the ones that
// exist. Also gh's habits: `svc version`, `svc api <ruta>` as a GET, `-X`.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIG_PROBLEMS } from '../../src/config/credentials.js';
import { tempDir } from '../helpers/cli.js';
import { svc } from '../helpers/inproc.js';
import { startSandbox, type Sandbox } from '../helpers/sandbox.js';
import { VERSION } from '../../src/version.js';

/** A config folder with two profiles: "tienda" (address and test key) and "vacio" (nothing). */
function configDir(): string {
  const dir = tempDir('svc-config-');
  const profiles = {
    tienda: { base_url: 'http://127.0.0.1:9', test_key: 'svc_test_abc' },
    vacio: {},
  };
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ current: 'tienda', profiles }), {
    mode: 0o600,
  });
  return dir;
}

describe('configuration problems: one table', () => {
  const cases: [keyof typeof CONFIG_PROBLEMS, string[], Record<string, string>, RegExp][] = [
    [
      'no_address',
      ['--profile', 'vacio', 'cuenta'],
      {},
      /no hay dirección del servicio configurada para el perfil "vacio"/,
    ],
    [
      'unknown_profile',
      ['--profile', 'nada', 'cuenta'],
      {},
      /el perfil "nada" no existe \(los que hay: tienda, vacio\)/,
    ],
    ['unknown_profile', ['cuenta'], { SVC_PROFILE: 'otra' }, /el perfil "otra" no existe/],
    [
      'bad_key',
      ['cuenta'],
      { SVC_API_KEY: 'sk_live_123' },
      /la clave de SVC_API_KEY no tiene el formato/,
    ],
    [
      'no_key',
      ['--profile', 'vacio', 'cuenta'],
      { SVC_BASE_URL: 'http://127.0.0.1:9' },
      /no hay clave configurada para el perfil "vacio"/,
    ],
    ['no_live_key', ['--live', 'cuenta'], {}, /el perfil "tienda" no tiene clave live/],
    [
      'no_secret',
      ['webhook', 'sign'],
      {},
      /no hay secreto de firma de notificaciones \(perfil "tienda"\)/,
    ],
  ];

  it.each(cases)(
    '%s: its exit code, one line with a hint, and {"error":"config","problem":…} under --json',
    async (problem, args, env, message) => {
      const base = { SVC_CONFIG_DIR: configDir(), ...env };
      const human = await svc(args, { env: base, input: '{}' });
      expect(human.exitCode).toBe(CONFIG_PROBLEMS[problem]);
      const [line, hint, ...rest] = human.stderr.trim().split('\n');
      expect(line).toMatch(message);
      expect(hint).toMatch(/^→ /);
      expect(rest).toEqual([]);
      const json = await svc([...args, '--json'], { env: base, input: '{}' });
      expect(json.exitCode).toBe(CONFIG_PROBLEMS[problem]);
      expect(json.stdout).toBe('');
      expect(JSON.parse(json.stderr)).toMatchObject({ error: 'config', problem });
    },
  );

  it.each([
    [
      'file_not_json',
      '{"current": "tienda",\n  "profiles": {\n',
      /^error: no se pudo leer el archivo de configuración .*config\.json: /,
    ],
    [
      'file_bad_shape',
      '{"current": "tienda",\n "profiles": {"tienda": {"base_url": "https://a.example"},\n "tienda": {"base_url": "https://b.example"}}}',
      /^error: no se pudo leer el archivo de configuración .*config\.json: profiles\.tienda aparece dos veces \(líneas 2 y 3\)/,
    ],
    [
      'file_bad_shape',
      `{"current": "tienda", "profiles": ${'['.repeat(200_000)}${']'.repeat(200_000)}}`,
      /^error: no se pudo leer el archivo de configuración .*config\.json: anida más de 64 niveles \(línea 1\)/,
    ],
    [
      'file_bad_shape',
      '{"current": "tienda", "profiles": {"tienda": {"test_key": 12}}}',
      /^error: el archivo de configuración .*config\.json no tiene la forma esperada \(profiles\.tienda\.test_key\)/,
    ],
  ])(
    '%s: a config.json svc cannot read is exit 1, one line and its fix, and its own problem under --json',
    async (problem, text, message) => {
      const dir = tempDir('svc-config-');
      writeFileSync(join(dir, 'config.json'), text, { mode: 0o600 });
      const human = await svc(['cuenta'], { env: { SVC_CONFIG_DIR: dir } });
      expect(human.exitCode).toBe(1);
      expect(human.stderr).toMatch(message);
      expect(human.stderr).toMatch(/\n→ corregilo o borralo/);
      const json = await svc(['cuenta', '--json'], { env: { SVC_CONFIG_DIR: dir } });
      expect(json.exitCode).toBe(1);
      expect(JSON.parse(json.stderr)).toMatchObject({ error: 'config', problem });
    },
  );

  it('with SVC_BASE_URL and SVC_API_KEY, an unknown profile is not needed and not a problem', async () => {
    const r = await svc(['--profile', 'nada', 'cuenta'], {
      env: {
        SVC_CONFIG_DIR: configDir(),
        SVC_BASE_URL: 'http://127.0.0.1:9',
        SVC_API_KEY: 'svc_test_x',
      },
    });
    expect(r.exitCode).toBe(6);
    expect(r.stderr).not.toContain('no existe');
  });
});

describe('gh habits', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox();
  });
  afterAll(() => sb.stop());

  it('svc version prints what --version prints; --json adds Node and the platform', async () => {
    const flag = await svc(['--version']);
    const cmd = await svc(['version']);
    expect(cmd.exitCode).toBe(0);
    expect(cmd.stdout).toBe(flag.stdout);
    expect(cmd.stdout).toBe(`${VERSION}\n`);
    expect(JSON.parse((await svc(['version', '--json'])).stdout)).toEqual({
      version: VERSION,
      node: process.versions.node,
      platform: `${process.platform}-${process.arch}`,
    });
  });

  it('svc api <ruta> is a GET; -X says the method; two different methods or no path are usage errors', async () => {
    const get = await svc(['api', '/v1/cuenta'], { env: sb.env });
    expect(get.exitCode, get.stderr).toBe(0);
    expect(JSON.parse(get.stdout).data.email).toBeTruthy();
    const c = (await sb.api('POST', '/v1/cobros', { concepto: 'api', monto: '5.00' })).body.data;
    const x = await svc(['api', '-X', 'post', `/v1/cobros/${c.id}/sync`], { env: sb.env });
    expect(x.exitCode, x.stderr).toBe(0);
    expect(JSON.parse(x.stdout).data.id).toBe(c.id);
    const log = (await sb.api('GET', '/_sandbox/log')).body.data as {
      method: string;
      path: string;
    }[];
    expect(log.some((l) => l.method === 'POST' && l.path === `/v1/cobros/${c.id}/sync`)).toBe(true);
    for (const [args, message] of [
      [['api', 'GET', '/v1/cuenta', '-X', 'POST'], /dos métodos: GET y -X POST/],
      [['api', 'GET'], /falta la ruta después de GET/],
      [['api'], /falta la ruta/],
    ] as const) {
      const r = await svc([...args], { env: sb.env });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  });
});
