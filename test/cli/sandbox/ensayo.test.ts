// Live mode rehearsed on the sandbox: its third merchant's key is a live key
// (api_key_live of the ready line), the only live key it accepts. With it every live
// guard of svc behaves as in production: the MODO LIVE banner, --yes required
// without a terminal, the live key in a profile; the sandbox's log marks its requests.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svcSpawned, tempDir } from '../../helpers/cli.js';
import { svc } from '../../helpers/inproc.js';
import { startSandbox, type Sandbox } from '../../helpers/sandbox.js';

let sb: Sandbox;
let live: Record<string, string>;
beforeAll(async () => {
  sb = await startSandbox({ argv: [] });
  live = { ...sb.env, SVC_API_KEY: sb.api_key_live! };
});
afterAll(() => sb?.stop());

describe('the rehearsal merchant', () => {
  it('the ready line gives a live key the sandbox accepts; any other live key stays 401', async () => {
    expect(sb.api_key_live).toMatch(/^svc_live_[0-9a-f]{32}$/);
    const me = await sb.api('GET', '/v1/cuenta', undefined, sb.api_key_live!);
    expect(me.status).toBe(200);
    expect(me.body.data).toMatchObject({ id: 3, puede_cobrar: true });
    expect(
      (await sb.api('GET', '/v1/cuenta', undefined, 'svc_live_0123456789abcdef0123456789abcdef'))
        .status,
    ).toBe(401);
  });

  it('live guards as in production: the banner, and a refund without a terminal needs --yes', async () => {
    const c = (
      await sb.api('POST', '/v1/cobros', { concepto: 'Ensayo', monto: '10.00' }, sb.api_key_live!)
    ).body.data;
    expect(
      (await sb.api('POST', `/_sandbox/cobros/${c.id}/pagar`, {}, sb.api_key_live!)).status,
    ).toBe(200);
    const refused = await svcSpawned(['devolver', String(c.id), '--monto', '1'], { env: live });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/MODO LIVE/);
    expect(refused.stderr).toMatch(/modo live sin terminal: .*necesita --yes/);
    const refunds = async () =>
      (
        (await sb.api('GET', '/v1/devoluciones', undefined, sb.api_key_live!)).body
          .data as unknown[]
      ).length;
    expect(await refunds()).toBe(0);
    const done = await svc(['devolver', c.codigo, '--monto', '1', '--yes', '--json'], {
      env: live,
    });
    expect(done.exitCode, done.stderr).toBe(0);
    expect(done.stderr).toMatch(/MODO LIVE/);
    expect(await refunds()).toBe(1);
    // The test merchant does not see the rehearsal merchant's requests.
    expect(
      ((await sb.api('GET', '/v1/cobros')).body.data as { id: number }[]).some(
        (x) => x.id === c.id,
      ),
    ).toBe(false);
  });

  it('the sandbox’s own controls print no MODO LIVE banner: they act on a sandbox, where no money is real', async () => {
    const c = (
      await sb.api('POST', '/v1/cobros', { concepto: 'Ensayo', monto: '10.00' }, sb.api_key_live!)
    ).body.data;
    for (const args of [
      ['sandbox', 'pagar', String(c.id)],
      ['sandbox', 'reloj'],
      ['sandbox', 'log', '--limit', '1'],
      ['sandbox', 'fallas', 'listar'],
      ['sandbox', 'webhook'],
    ]) {
      const r = await svc(args, { env: live });
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r.stderr, args.join(' ')).not.toMatch(/MODO LIVE|dinero real/);
    }
    // A command on the service itself, with the same key, still shows it.
    expect((await svc(['cuenta'], { env: live })).stderr).toMatch(/MODO LIVE/);
  });

  it('the sandbox log marks its requests as rehearsal', async () => {
    const r = await svc(['sandbox', 'log', '--json', '--ruta', '/v1/cuenta'], { env: live });
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.some((l) => l.comercio === 3 && l.ensayo === true)).toBe(true);
    expect(lines.filter((l) => l.comercio !== 3).every((l) => l.ensayo === undefined)).toBe(true);
    const text = await svc(['sandbox', 'log', '--ruta', '/v1/cuenta'], { env: live });
    expect(text.stdout).toMatch(/comercio 3 \(ensayo live\)/);
  });

  it("svc login stores it as the profile's live key; --live then uses it", async () => {
    const dir = tempDir('svc-ensayo-');
    const login = await svc(['login', '--with-key-stdin', '--base-url', sb.base_url], {
      env: { SVC_CONFIG_DIR: dir, SVC_KEYRING: 'off' },
      input: `${sb.api_key_live}\n`,
    });
    expect(login.exitCode, login.stderr).toBe(0);
    expect(
      JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.default.live_key,
    ).toBe(sb.api_key_live);
    const cuenta = await svc(['--live', 'cuenta', '--json'], {
      env: { SVC_CONFIG_DIR: dir, SVC_KEYRING: 'off' },
    });
    expect(cuenta.exitCode, cuenta.stderr).toBe(0);
    expect(JSON.parse(cuenta.stdout).id).toBe(3);
    expect(cuenta.stderr).toMatch(/MODO LIVE/);
  });
});
