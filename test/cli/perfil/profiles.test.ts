// svc login / logout / perfil against a real sandbox: keys stored 0600 in a 0700
// folder, never printed whole, refused before any request when malformed.
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
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

const login = (dir: string, input: string, extra: string[] = []) =>
  svc(['login', '--with-key-stdin', '--base-url', sb.base_url, ...extra], {
    env: { SVC_CONFIG_DIR: dir },
    input,
  });

describe('login and profiles', () => {
  it('stores a validated key in a 0600 file inside a 0700 folder and never prints it', async () => {
    const dir = join(tempDir(), 'nested', 'svc');
    const r = await login(dir, `${sb.api_key}\n`);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('sesión iniciada');
    expect(r.stderr).toContain(`svc_test_…${sb.api_key.slice(-4)}`);
    expect(r.stderr + r.stdout).not.toContain(sb.api_key);
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const saved = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    expect(saved.profiles.default.test_key).toBe(sb.api_key);

    // The stored profile is what later commands use: no env needed.
    const cuenta = await svcSpawned(['cuenta', '--json'], { env: { SVC_CONFIG_DIR: dir } });
    expect(cuenta.exitCode).toBe(0);
    expect(JSON.parse(cuenta.stdout).puede_cobrar).toBe(true);

    const list = await svc(['perfil', 'listar', '--json'], { env: { SVC_CONFIG_DIR: dir } });
    expect(list.exitCode).toBe(0);
    expect(list.stdout).not.toContain(sb.api_key);
    expect(JSON.parse(list.stdout)[0]).toMatchObject({
      name: 'default',
      current: true,
      test_key: `svc_test_…${sb.api_key.slice(-4)}`,
    });
  });

  it('stores the signing secret read from stdin after the key', async () => {
    const dir = tempDir();
    const r = await login(dir, `${sb.api_key}\n${sb.webhook_secret}\n`, [
      '--webhook-secret-stdin',
      '--profile',
      'tienda',
    ]);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).not.toContain(sb.webhook_secret);
    const saved = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    expect(saved.profiles.tienda.webhook_secret).toBe(sb.webhook_secret);
  });

  it.each([
    ['a key without the svc_ prefix', 'sk_test_1234567890abcdef'],
    ['an empty stdin', ''],
    ['a key with spaces', 'svc_test_abc def ghi jkl'],
  ])('refuses %s before any request (exit 2)', async (_name, key) => {
    const dir = tempDir();
    const r = await login(dir, `${key}\n`);
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim().split('\n')[0]).toMatch(/^error: /);
    expectNoStack(r.stderr);
  });

  it('an unknown key is refused by the service with exit 3 and nothing is stored', async () => {
    const dir = tempDir();
    const r = await login(dir, 'svc_test_unknownkey0000000000\n');
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain('unauthorized');
    expect(r.stderr).not.toContain('svc_test_unknownkey0000000000');
    const list = await svc(['perfil', 'listar', '--json'], { env: { SVC_CONFIG_DIR: dir } });
    expect(JSON.parse(list.stdout)).toEqual([]);
  });

  it('refuses plain http to a host that is not loopback (exit 2)', async () => {
    const r = await svc(['login', '--with-key-stdin', '--base-url', 'http://api.example.com'], {
      input: `${sb.api_key}\n`,
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/http sin cifrar/);
  });

  it('perfil usar / borrar and logout', async () => {
    const dir = tempDir();
    expect((await login(dir, `${sb.api_key}\n`, ['--profile', 'a'])).exitCode).toBe(0);
    expect((await login(dir, `${sb.api_key}\n`, ['--profile', 'b'])).exitCode).toBe(0);
    const env = { SVC_CONFIG_DIR: dir };
    expect((await svc(['perfil', 'usar', 'b'], { env })).exitCode).toBe(0);
    const list = JSON.parse((await svc(['perfil', 'listar', '--json'], { env })).stdout);
    expect(list.find((p: { current: boolean }) => p.current).name).toBe('b');
    const missing = await svc(['perfil', 'usar', 'zzz'], { env });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('no existe el perfil "zzz"');
    // A profile named that does not exist is pointed out (exit 2), not "nothing to forget".
    const typo = await svc(['logout', '--profile', 'bb'], { env });
    expect(typo.exitCode).toBe(2);
    expect(typo.stderr).toContain('el perfil "bb" no existe (los que hay: a, b)');
    // No terminal to confirm on: the keys stay unless --yes says so.
    expect((await svc(['logout'], { env })).exitCode).toBe(2);
    expect((await svc(['logout', '--yes'], { env })).exitCode).toBe(0);
    const after = await svc(['cuenta'], { env });
    expect(after.exitCode).toBe(3);
    expect(after.stderr).toContain('no hay clave');
    expect((await svc(['perfil', 'borrar', 'a', '--yes'], { env })).exitCode).toBe(0);
    expect(
      JSON.parse((await svc(['perfil', 'listar', '--json'], { env })).stdout).map(
        (p: { name: string }) => p.name,
      ),
    ).toEqual(['b']);
  });

  it('a corrupt config file gives one clear line naming the file (exit 1) and is left untouched', async () => {
    const dir = tempDir();
    mkdirSync(dir, { recursive: true });
    // 0600: a file others can read is refused before it is parsed (test/config/permissions.test.ts).
    writeFileSync(join(dir, 'config.json'), '{"profiles": {oops', { mode: 0o600 });
    const r = await svc(['cuenta'], { env: { SVC_CONFIG_DIR: dir } });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(join(dir, 'config.json'));
    expectNoStack(r.stderr);
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe('{"profiles": {oops');
  });

  it('four logins at once leave a valid file holding all four profiles', async () => {
    const dir = tempDir();
    const results = await Promise.all(
      ['p1', 'p2', 'p3', 'p4'].map((p) => login(dir, `${sb.api_key}\n`, ['--profile', p])),
    );
    expect(results.map((r) => r.exitCode)).toEqual([0, 0, 0, 0]);
    const saved = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    expect(Object.keys(saved.profiles).sort()).toEqual(['p1', 'p2', 'p3', 'p4']);
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
  });
});
