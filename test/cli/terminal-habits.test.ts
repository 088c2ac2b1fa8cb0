// What a person at a terminal meets (a real pty via util-linux `script`; perfil borrar's
// confirmation in this process, inproc.ts): a merchant that cannot collect is told
// before any question; a mistyped address at login is asked again; logout and perfil
// borrar confirm (s/N), --yes skips; trigger goes to the local listener by default and
// takes `localhost:PORT` without a scheme; the demo shows a step's preview before its
// result; the spinner animates or not as the environment svc is given says (in this
// process, whose own CI may differ).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith, profilesIn, tempDir } from '../helpers/cli.js';
import { svc, svcAtTerminal } from '../helpers/inproc.js';
import { startSandbox, type Sandbox } from '../helpers/sandbox.js';
import { hasScript, svcTty, NO_SCRIPT } from '../helpers/tty.js';
import { addressProblem } from '../../src/cli/commands/perfil/login.js';
import { skipBecause } from '../helpers/skips.js';

const HAVE_SCRIPT = hasScript();
const NO_TTY = skipBecause(import.meta.url, !HAVE_SCRIPT && NO_SCRIPT);

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.stop());

describe.skipIf(NO_TTY)('on a terminal', () => {
  it('cobro crear: a merchant that cannot collect is told before any question, exit 4', async () => {
    const r = await svcTty(['cobro', 'crear'], { ...sb.env, SVC_API_KEY: sb.api_key_no_listo }, []);
    expect(r.exitCode).toBe(4);
    expect(r.screen).toMatch(/esta cuenta todavía no puede crear cobros \(puede_cobrar: no\)/);
    expect(r.screen).not.toMatch(/Concepto/);
  });

  it('login: a typo in the address is asked again with a hint, and the login goes on', async () => {
    const dir = tempDir('svc-config-');
    const host = new URL(sb.base_url).host;
    const r = await svcTty(['login'], { SVC_CONFIG_DIR: dir }, [
      [/Dirección del servicio/, `${host}\r`],
      // The sandbox is on this machine: http://, not https://.
      [/¿falta http:\/\/\? ej\. http:\/\/127\.0\.0\.1:\d+/, '\u0015'],
      [/Dirección del servicio/, `${sb.base_url}\r`],
      [/Clave/, `${sb.api_key}\r`],
      [/Secreto de firma/, '\r'],
    ]);
    expect(r.exitCode, r.screen).toBe(0);
    expect(profilesIn(dir).default.base_url).toBe(sb.base_url);
  });

  // logout in the pty; perfil borrar, the same confirmation, in this process (inproc.ts).
  for (const [what, args, atTerminal] of [
    ['logout', ['logout'], svcTty],
    ['perfil borrar', ['perfil', 'borrar', 'default'], svcAtTerminal],
  ] as const) {
    it(`${what}: "n" keeps the keys, "s" removes them; --yes does not ask`, async () => {
      const dir = configWith({ default: { base_url: sb.base_url, test_key: sb.api_key } });
      const no = await atTerminal([...args], { SVC_CONFIG_DIR: dir }, [[/\(s\/N\)/, 'n\r']]);
      expect(no.exitCode).toBe(8);
      expect(profilesIn(dir).default.test_key).toBe(sb.api_key);
      const yes = await atTerminal([...args], { SVC_CONFIG_DIR: dir }, [[/\(s\/N\)/, 's\r']]);
      expect(yes.exitCode, yes.screen).toBe(0);
      expect(profilesIn(dir).default?.test_key).toBeUndefined();
      const again = configWith({ default: { base_url: sb.base_url, test_key: sb.api_key } });
      const forced = await atTerminal([...args, '--yes'], { SVC_CONFIG_DIR: again }, []);
      expect(forced.exitCode, forced.screen).toBe(0);
      expect(forced.screen).not.toMatch(/\(s\/N\)/);
    });
  }
});

describe('addresses a person types', () => {
  it.each<[string, true | RegExp]>([
    ['https://api.example.com', true],
    ['http://127.0.0.1:4010', true],
    ['api.example.com', /¿falta https:\/\/\? ej\. https:\/\/api\.example\.com/],
    ['127.0.0.1:4010', /¿falta http:\/\/\? ej\. http:\/\/127\.0\.0\.1:4010\)$/],
    ['localhost:4010', /¿falta http:\/\/\? ej\. http:\/\/localhost:4010\)$/],
    ['ftp://x.example', /\(se espera https:\/\/…\)$/],
    ['http://api.example.com', /usa http sin cifrar/],
  ])('%s', (typed, expected) => {
    const got = addressProblem(typed);
    if (expected === true) expect(got).toBe(true);
    else expect(got).toMatch(expected);
  });
});

describe('webhook trigger without --forward-to', () => {
  let app: Server;
  let port: number;
  const got: string[] = [];
  beforeAll(async () => {
    app = createServer((req, res) => {
      got.push(`${req.method} ${req.url}`);
      req.resume();
      req.on('end', () => res.end('ok'));
    });
    await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
    port = (app.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => app.close(() => r())));

  it('takes localhost:PORT/path without a scheme', async () => {
    const r = await svc(
      ['webhook', 'trigger', 'payment.approved', '--forward-to', `localhost:${port}/webhooks`],
      { env: { SVC_WEBHOOK_SECRET: 'whsec_x' } },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(got).toContain('POST /webhooks');
  });

  it('goes to the local listener (127.0.0.1:4242) and, when none runs, says so: exit 6', async (t) => {
    // The test stands in for the listener on its default port; a real one running there (a developer's) skips it.
    const listener = createServer((req, res) => {
      got.push(`${req.method} ${req.url} (4242)`);
      req.resume();
      req.on('end', () => res.end('ok'));
    });
    const free = await new Promise<boolean>((resolve) => {
      listener.once('error', () => resolve(false));
      listener.listen(4242, '127.0.0.1', () => resolve(true));
    });
    if (!free) {
      t.skip('something already listens on 127.0.0.1:4242 (a running svc webhook listen?)');
      return;
    }
    const sent = await svc(['webhook', 'trigger', 'payment.approved'], {
      env: { SVC_WEBHOOK_SECRET: 'whsec_x' },
    });
    await new Promise<void>((r) => listener.close(() => r()));
    expect(sent.exitCode, sent.stderr).toBe(0);
    expect(sent.stderr).toContain('al listener local http://127.0.0.1:4242/');
    expect(got).toContain('POST / (4242)');
    const none = await svc(['webhook', 'trigger', 'payment.approved'], {
      env: { SVC_WEBHOOK_SECRET: 'whsec_x' },
    });
    expect(none.exitCode).toBe(6);
    expect(none.stderr).toMatch(/¿está corriendo `svc webhook listen`\?/);
  });
});

describe.skipIf(NO_TTY)('svc demo on a terminal', () => {
  it("shows the refund's preview before its result", async () => {
    const r = await svcTty(['demo'], {}, [], 60_000);
    expect(r.exitCode, r.screen).toBe(0);
    const step = r.screen.slice(r.screen.indexOf('Devolver una parte'));
    const preview = step.indexOf('a devolver:');
    const result = step.search(/tipo\s+parcial/);
    expect(preview).toBeGreaterThan(0);
    expect(result).toBeGreaterThan(preview);
  });
});

// The spinner animates on a terminal unless the environment svc was given says CI or a
// dumb terminal (ora's own rule), read from that environment: main() run in a process
// whose own CI differs (a test worker, a program embedding svc) follows what it was given.
describe('the spinner follows the environment svc is given', () => {
  it('animates at a terminal, and prints its line once under CI or TERM=dumb', async () => {
    const created = await sb.api('POST', '/v1/cobros', { concepto: 'Spinner', monto: '10.00' });
    const id = String(created.body.data.id);
    const frame = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] buscando el cobro/;
    const plain = /^- buscando el cobro \d+…$/m;
    const at = (env: Record<string, string>) =>
      svcAtTerminal(['cobro', 'ver', id], { ...sb.env, ...env }, [], 10_000, {
        cols: 80,
        rows: 24,
      });
    const animated = await at({});
    expect(animated.exitCode, animated.screen).toBe(0);
    expect(animated.screen).toMatch(frame);
    expect(animated.screen).not.toMatch(plain);
    const quiet: Record<string, string>[] = [{ CI: 'true' }, { CI: '' }, { TERM: 'dumb' }];
    for (const env of quiet) {
      const r = await at(env);
      expect(r.exitCode, r.screen).toBe(0);
      expect(r.screen, JSON.stringify(env)).toMatch(plain);
      expect(r.screen, JSON.stringify(env)).not.toMatch(frame);
    }
  });
});
