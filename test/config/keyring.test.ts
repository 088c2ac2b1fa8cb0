// Live keys and the OS keyring (issue 7): `svc login` puts a live key in the keyring
// when one answers and says so; the config file then holds no key; live commands read
// it back; logout and `perfil borrar` remove it. A keyring that hangs is given up after
// 3 s (SVC_KEYRING_TIMEOUT) and the key goes to the 0600 file with a one-line notice.
// Runs against a private Secret Service (dbus-daemon + gnome-keyring-daemon in a temp
// HOME), never the user's: one for the file, as every test uses its own config folders
// and so its own entries.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoStack, ROOT, svcSpawned, tempDir, type SvcResult } from '../helpers/cli.js';
import { svcOf } from '../helpers/inproc.js';
import {
  secretServiceMissing,
  startHangingBus,
  startSecretService,
  type SecretService,
  type SessionEnv,
} from '../helpers/keyring.js';
import { inSpanish, keyringTimeoutMs } from '../../src/config/keyring.js';
import { startSandbox, type Sandbox } from '../helpers/sandbox.js';
import { LIVE_KEY, startLiveProxy, type LiveProxy } from '../helpers/live-proxy.js';
import { skipBecause } from '../helpers/skips.js';

const missing = secretServiceMissing();
if (missing) {
  if (process.env.SVC_REQUIRE_KEYRING_TEST === '1')
    throw new Error(`SVC_REQUIRE_KEYRING_TEST=1 but the keyring test cannot run: ${missing}`);
}

// In this process, the built main(): the keyring's helper process is found beside the
// compiled keyring module (dist/config/), which src/ under vitest has not. Each keyring
// call still runs the real helper against the real bus. The bundled binary finding it
// from dist/chunks/ is the first test's login, spawned.
const builtMain = (await import(
  pathToFileURL(join(ROOT, 'dist', 'main.js')).href
)) as typeof import('../../src/main.js');
const svcBuilt = svcOf(builtMain.main);

let sb: Sandbox;
let proxy: LiveProxy;
let secrets: SecretService;
let hanging: Awaited<ReturnType<typeof startHangingBus>>;

beforeAll(async () => {
  if (missing) return;
  [sb, secrets, hanging] = await Promise.all([
    startSandbox(),
    startSecretService(),
    startHangingBus(),
  ]);
  proxy = await startLiveProxy(sb.base_url, sb.api_key);
});
afterAll(async () => {
  await Promise.all([sb?.stop(), proxy?.close(), secrets?.stop(), hanging?.stop()]);
});

/**
 * svc with the keyring on, talking to the session bus `session`, in this process unless
 * `spawned`. The working keyring gets 20 s (SVC_KEYRING_TIMEOUT): on a loaded two-core
 * machine its calls took over the 3 s default and the key went to the file; the hanging
 * bus gets 1 s, as the tests there want the timeout to fire (the 3 s default is
 * keyringTimeoutMs's own test below).
 */
const run = (
  dir: string,
  session: SessionEnv,
  args: string[],
  input?: string,
  spawned = false,
): Promise<SvcResult> =>
  (spawned ? svcSpawned : svcBuilt)(args, {
    env: {
      SVC_CONFIG_DIR: dir,
      SVC_KEYRING: undefined,
      SVC_KEYRING_TIMEOUT: session === secrets?.env ? '20' : '1',
      ...session,
    },
    ...(input !== undefined ? { input } : {}),
  });

const login = (dir: string, session: SessionEnv, profile = 'default', spawned = false) =>
  run(
    dir,
    session,
    ['login', '--with-key-stdin', '--base-url', proxy.baseUrl, '--profile', profile],
    `${LIVE_KEY}\n`,
    spawned,
  );

/**
 * A login whose key went to the keyring. The daemon may still be registering on the bus,
 * and a keyring call slower than its timeout on a loaded machine falls back to the file:
 * logging in again (bounded) puts the key where the test needs it.
 */
async function loginInKeyring(dir: string, profile = 'default', spawned = false) {
  let r = await login(dir, secrets.env, profile, spawned);
  for (let i = 0; i < 20 && !r.stderr.includes('llavero del sistema (servicio'); i++) {
    await new Promise((done) => setTimeout(done, 250));
    r = await login(dir, secrets.env, profile, spawned);
  }
  expect(r.exitCode, r.stderr).toBe(0);
  expect(r.stderr).toContain('llavero del sistema (servicio "svc")');
  return r;
}

const configText = (dir: string) => readFileSync(join(dir, 'config.json'), 'utf8');

/** Points the profile back at the keyring by hand: a live command must then say the key is gone (exit 3, one line). */
async function expectEntryGone(dir: string, profile: string): Promise<void> {
  const config = JSON.parse(configText(dir));
  config.profiles[profile] = { base_url: proxy.baseUrl, live_key_in: 'keyring' };
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config), { mode: 0o600 });
  const r = await run(dir, secrets.env, ['--live', '--profile', profile, 'cuenta']);
  expect(r.exitCode, r.stderr).toBe(3);
  expectNoStack(r.stderr);
  expect(r.stdout).toBe('');
  expect(r.stderr).toContain(
    `la clave live del perfil "${profile}" ya no está en el llavero del sistema`,
  );
}

describe("the keyring library's reasons, in Spanish", () => {
  it("says what failed in svc's words and keeps the library's detail; anything else passes as it is", () => {
    expect(inSpanish("Couldn't access platform storage: AccessDenied")).toBe(
      'el sistema no dio acceso al llavero (AccessDenied)',
    );
    expect(inSpanish('Platform secure storage failure: DBus error: no session')).toBe(
      'falló el llavero del sistema (DBus error: no session)',
    );
    expect(inSpanish('No matching entry found in secure storage')).toBe(
      'la entrada no está en el llavero',
    );
    expect(inSpanish('el llavero no respondió en 3 s')).toBe('el llavero no respondió en 3 s');
  });

  it('gives every keyring call 3 s, or SVC_KEYRING_TIMEOUT whole seconds from 1 to 60', () => {
    expect(keyringTimeoutMs({})).toBe(3000);
    expect(keyringTimeoutMs({ SVC_KEYRING_TIMEOUT: '1' })).toBe(1000);
    expect(keyringTimeoutMs({ SVC_KEYRING_TIMEOUT: ' 10 ' })).toBe(10_000);
    expect(keyringTimeoutMs({ SVC_KEYRING_TIMEOUT: '60' })).toBe(60_000);
    for (const wrong of ['', '0', '61', '1.5', '-5', 'diez', '100'])
      expect(keyringTimeoutMs({ SVC_KEYRING_TIMEOUT: wrong }), wrong).toBe(3000);
  });
});

describe.skipIf(skipBecause(import.meta.url, missing))('live keys in the OS keyring', () => {
  it('login stores a live key in the keyring, not the file; live commands read it back; logout removes it', async () => {
    const dir = tempDir();
    const r = await loginInKeyring(dir, 'default', true);
    expectNoStack(r.stderr);
    expect(r.stderr).toContain('sesión iniciada');
    expect(r.stderr).toContain(
      `la clave live quedó en el llavero del sistema (servicio "svc"), no en ${join(dir, 'config.json')}`,
    );
    expect(r.stdout + r.stderr).not.toContain(LIVE_KEY);
    expect(configText(dir)).not.toContain(LIVE_KEY);
    expect(JSON.parse(configText(dir)).profiles.default).toMatchObject({
      live_key_in: 'keyring',
      base_url: proxy.baseUrl,
    });
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);

    const cuenta = await run(dir, secrets.env, ['--live', 'cuenta', '--json']);
    expect(cuenta.exitCode, cuenta.stderr).toBe(0);
    expect(cuenta.stderr).toContain('MODO LIVE');
    expect(JSON.parse(cuenta.stdout)).toMatchObject({ puede_cobrar: true });
    expect(cuenta.stdout + cuenta.stderr).not.toContain(LIVE_KEY);

    const list = await run(dir, secrets.env, ['perfil', 'listar', '--json']);
    expect(JSON.parse(list.stdout)[0]).toMatchObject({
      name: 'default',
      live_key: 'en el llavero',
    });

    const out = await run(dir, secrets.env, ['logout', '--yes']);
    expect(out.exitCode, out.stderr).toBe(0);
    expect(out.stderr).toBe('claves del perfil "default" borradas\n');
    expect(JSON.parse(configText(dir)).profiles.default.live_key_in).toBeUndefined();

    // Gone from the keyring too: pointing the file back at the entry finds nothing.
    await expectEntryGone(dir, 'default');

    // perfil borrar removes the entry as well.
    await loginInKeyring(dir, 'otro');
    const borrar = await run(dir, secrets.env, ['perfil', 'borrar', 'otro', '--yes']);
    expect(borrar.exitCode, borrar.stderr).toBe(0);
    expect(borrar.stderr).toBe('perfil "otro" borrado\n');
    await expectEntryGone(dir, 'otro');
  }, 60_000);

  it('two config folders with the same profile name keep separate entries', async () => {
    const [one, two] = [tempDir(), tempDir()];
    await loginInKeyring(one);
    await loginInKeyring(two);
    expect((await run(two, secrets.env, ['logout', '--yes'])).exitCode).toBe(0);
    const cuenta = await run(one, secrets.env, ['--live', 'cuenta', '--json']);
    expect(cuenta.exitCode, cuenta.stderr).toBe(0);
    await expectEntryGone(two, 'default');
  }, 60_000);

  it('a keyring that never answers: login gives up, stores the key 0600 in the file and says so in one line', async () => {
    const dir = tempDir();
    const r = await login(dir, hanging.env);
    expect(r.exitCode, r.stderr).toBe(0);
    expectNoStack(r.stderr);
    const notice = r.stderr.split('\n').filter((l) => l.includes('llavero'));
    expect(notice).toEqual([
      `sin llavero del sistema (el llavero no respondió en 1 s): la clave live quedó en ${join(dir, 'config.json')} (permisos 0600)`,
    ]);
    expect(r.stdout + r.stderr).not.toContain(LIVE_KEY);
    const saved = JSON.parse(configText(dir)).profiles.default;
    expect(saved.live_key).toBe(LIVE_KEY);
    expect(saved.live_key_in).toBeUndefined();
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);

    // The key in the file needs no keyring: the hanging bus is never asked.
    const cuenta = await run(dir, hanging.env, ['--live', 'cuenta', '--json']);
    expect(cuenta.exitCode, cuenta.stderr).toBe(0);
  }, 60_000);

  it('a live command whose key is in a keyring that stopped answering: exit 3 after its timeout, one line, no stack', async () => {
    const dir = tempDir();
    await loginInKeyring(dir);
    const r = await run(dir, hanging.env, ['--live', 'cuenta']);
    expect(r.exitCode).toBe(3);
    expectNoStack(r.stderr);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(
      'la clave live del perfil "default" está en el llavero del sistema, y el llavero falló: el llavero no respondió en 1 s',
    );
  }, 60_000);

  it('SVC_KEYRING=off keeps live keys in the 0600 file and the notice names the setting', async () => {
    const dir = tempDir();
    const r = await svcBuilt(['login', '--with-key-stdin', '--base-url', proxy.baseUrl], {
      env: { SVC_CONFIG_DIR: dir, SVC_KEYRING: 'off', ...secrets.env },
      input: `${LIVE_KEY}\n`,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `sin llavero del sistema (desactivado con SVC_KEYRING=off): la clave live quedó en ${join(dir, 'config.json')} (permisos 0600)`,
    );
    expect(JSON.parse(configText(dir)).profiles.default.live_key).toBe(LIVE_KEY);
  });

  it('test keys stay in the file and never touch the keyring', async () => {
    const dir = tempDir();
    const r = await run(
      dir,
      hanging.env,
      ['login', '--with-key-stdin', '--base-url', sb.base_url],
      `${sb.api_key}\n`,
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('llavero');
    expect(JSON.parse(configText(dir)).profiles.default.test_key).toBe(sb.api_key);
  });
});
