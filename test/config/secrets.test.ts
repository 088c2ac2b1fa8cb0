// Secrets: the API key and the webhook signing secret never show up where someone
// could read them: stdout, stderr (--debug included), error messages, the files in
// the config and data folders other than config.json (which keeps the key at 0600
// in a 0700 folder), the webhook journal, or the argv / title of a long-running
// `svc sandbox` or `svc webhook listen`. Keys pass by env or stdin, never argv.
import { execa } from 'execa';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, expectNoStack, svcSpawned, tempDir, type SvcResult } from '../helpers/cli.js';
// Cases run in-process through main() (svc); spawned() runs the built binary, once per behaviour.
import { svc } from '../helpers/inproc.js';
import { startSandbox, type SpawnedSandbox } from '../helpers/sandbox.js';
import { skipBecause } from '../helpers/skips.js';

let sb: SpawnedSandbox;
const configDir = tempDir('svc-secrets-config-');
const dataDir = tempDir('svc-secrets-data-');
const workDir = tempDir('svc-secrets-work-');
const journal = join(dataDir, 'webhooks.jsonl');
/** A well-formed key the service does not know (401), and a malformed one (refused locally). */
const WRONG_KEY = `svc_test_${createHash('sha256').update('wrong').digest('hex').slice(0, 32)}`;
const MALFORMED_KEY = 'sk_live_abcdefghijklmnopqrstuvwxyz012345';

const outputs: { what: string; text: string }[] = [];
const record = (what: string, r: SvcResult): SvcResult => {
  outputs.push(
    { what: `${what} (stdout)`, text: r.stdout },
    { what: `${what} (stderr)`, text: r.stderr },
  );
  expectNoStack(r.stderr);
  return r;
};

/**
 * Pieces of a secret that must never appear: the whole value, and every 12-character
 * window of the part after its prefix (masked keys keep only the last 4).
 */
function secretPieces(secret: string): string[] {
  const body = secret.replace(/^(svc_(test|live)_|whsec_)/, '');
  const pieces = new Set([secret]);
  for (let i = 0; i + 12 <= body.length; i++) pieces.add(body.slice(i, i + 12));
  return [...pieces];
}

function expectClean(what: string, text: string): void {
  for (const [name, secret] of secrets()) {
    const hit = secretPieces(secret).find((p) => text.includes(p));
    expect(hit, `${name} leaked in ${what}:\n${text.slice(0, 2000)}`).toBeUndefined();
  }
}

function secrets(): [string, string][] {
  return [
    ['API key', sb.api_key],
    ['second API key', sb.api_key_no_listo],
    ['webhook secret', sb.webhook_secret],
    ['wrong API key', WRONG_KEY],
    ['malformed API key', MALFORMED_KEY],
  ];
}

/** Env of a `svc` run that uses the shared config and data folders (the profile is the source of the key). */
const env = (extra: Record<string, string> = {}) => ({
  SVC_CONFIG_DIR: configDir,
  SVC_DATA_DIR: dataDir,
  ...extra,
});

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? [p, ...walk(p)] : [p];
  });
}

/** argv and title of a running process, as `ps` would show them. */
function procView(pid: number): string {
  const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  const comm = readFileSync(`/proc/${pid}/comm`, 'utf8');
  return `cmdline: ${cmdline}\ncomm: ${comm}`;
}

beforeAll(async () => {
  sb = await startSandbox({ spawned: [] });
});
afterAll(async () => {
  await sb?.stop();
});

describe.skipIf(
  skipBecause(
    import.meta.url,
    process.platform !== 'linux' && `Linux only (this is ${process.platform})`,
  ),
)('secrets never leak', () => {
  it('login reads key and secret from stdin, stores them in config.json 0600 inside a 0700 folder, prints neither', async () => {
    const r = record(
      'login --with-key-stdin --webhook-secret-stdin --debug',
      await svcSpawned(
        [
          'login',
          '--with-key-stdin',
          '--webhook-secret-stdin',
          '--base-url',
          sb.base_url,
          '--debug',
        ],
        {
          env: env(),
          input: `${sb.api_key}\n${sb.webhook_secret}\n`,
        },
      ),
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const file = join(configDir, 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(configDir).mode & 0o777).toBe(0o700);
    // It is where the key legitimately lives: the test is meaningful only if it is there.
    const stored = readFileSync(file, 'utf8');
    expect(stored).toContain(sb.api_key);
    expect(stored).toContain(sb.webhook_secret);
  });

  it('read and write commands with --debug: the key is redacted from request and response lines', async () => {
    const cobro = await sb.api('POST', '/v1/cobros', { concepto: 'secretos', monto: '10.00' });
    const id = String(cobro.body.data.id);
    const runs: [string, string[]][] = [
      ['cuenta --debug', ['cuenta', '--debug']],
      ['cuenta --json --debug', ['cuenta', '--json', '--debug']],
      ['cobro listar --debug', ['cobro', 'listar', '--debug']],
      ['cobro ver --debug', ['cobro', 'ver', id, '--debug']],
      [
        'cobro crear --debug',
        ['cobro', 'crear', '--concepto', 'Pedido', '--monto', '12.50', '--debug'],
      ],
      ['sync --debug', ['sync', id, '--debug']],
      ['api GET /v1/cuenta --debug', ['api', 'GET', '/v1/cuenta', '--debug']],
      ['perfil listar', ['perfil', 'listar']],
      ['perfil listar --json', ['perfil', 'listar', '--json']],
      ['salud --debug', ['salud', '--debug']],
    ];
    for (const [what, args] of runs) {
      const r = record(what, await svc(args, { env: env() }));
      expect(r.exitCode, `${what}: ${r.stderr}`).toBe(0);
    }
    // --debug really printed the request (else the redaction check proves nothing).
    const debug = outputs.find((o) => o.what === 'cuenta --debug (stderr)')!.text;
    expect(debug).toMatch(/authorization: Bearer \[redactado\]/i);
    expect(debug).toMatch(/GET .*\/v1\/cuenta/);
  });

  it('errors do not echo a key: 404, 401 with a wrong key, a malformed key, a key from env with --debug', async () => {
    const notFound = record(
      'cobro ver 999999 --debug',
      await svc(['cobro', 'ver', '999999', '--debug'], { env: env() }),
    );
    expect(notFound.exitCode).toBe(5);
    const wrong = record(
      'cuenta with a wrong key --debug',
      await svc(['cuenta', '--debug'], { env: env({ SVC_API_KEY: WRONG_KEY }) }),
    );
    expect(wrong.exitCode).toBe(3);
    const wrongJson = record(
      'cuenta with a wrong key --json',
      await svc(['cuenta', '--json'], { env: env({ SVC_API_KEY: WRONG_KEY }) }),
    );
    expect(wrongJson.exitCode).toBe(3);
    const malformed = record(
      'cuenta with a malformed key',
      await svc(['cuenta'], { env: env({ SVC_API_KEY: MALFORMED_KEY }) }),
    );
    expect(malformed.exitCode).toBe(2);
    const login = record(
      'login with a malformed key',
      await svc(['login', '--with-key-stdin', '--base-url', sb.base_url, '--profile', 'otro'], {
        env: env(),
        input: `${MALFORMED_KEY}\n`,
      }),
    );
    expect(login.exitCode).toBe(2);
    const loginWrong = record(
      'login with a wrong key --debug',
      await svc(
        ['login', '--with-key-stdin', '--base-url', sb.base_url, '--profile', 'otro', '--debug'],
        { env: env(), input: `${WRONG_KEY}\n` },
      ),
    );
    expect(loginWrong.exitCode).toBe(3);
  });

  it('webhook sign / verify / trigger / listen / eventos: the secret is used, never shown; argv and title of listen and sandbox are clean', async () => {
    const bodyFile = join(workDir, 'evento.json');
    writeFileSync(
      bodyFile,
      JSON.stringify({ event: 'payment.approved', data: { id: 1, estado: 'PAGADA' } }),
    );
    const sign = record(
      'webhook sign',
      await svc(['webhook', 'sign', '--body', bodyFile], { env: env() }),
    );
    expect(sign.exitCode, sign.stderr).toBe(0);
    expect(sign.stdout).toMatch(/X-Svc-Signature: sha256=[0-9a-f]{64}/);
    const ts = /X-Svc-Timestamp: (\d+)/.exec(sign.stdout)?.[1] ?? '0';
    const badVerify = record(
      'webhook verify (bad signature) --debug',
      await svc(
        [
          'webhook',
          'verify',
          '--timestamp',
          ts,
          '--signature',
          `sha256=${'0'.repeat(64)}`,
          '--body',
          bodyFile,
          '--debug',
        ],
        { env: env() },
      ),
    );
    expect(badVerify.exitCode).toBe(7);
    const badVerifyEnv = record(
      'webhook verify --secret-from-env (bad signature)',
      await svc(
        [
          'webhook',
          'verify',
          '--secret-from-env',
          '--timestamp',
          ts,
          '--signature',
          'sha256=zz',
          '--body',
          bodyFile,
        ],
        {
          env: env({ SVC_WEBHOOK_SECRET: sb.webhook_secret }),
        },
      ),
    );
    expect(badVerifyEnv.exitCode).toBe(7);

    // A long-running listener, secret by env: its argv and title, then one event through it.
    const listen = execa(
      'node',
      [
        BIN,
        'webhook',
        'listen',
        '--port',
        '0',
        '--journal',
        journal,
        '--secret-from-env',
        '--json',
      ],
      {
        cwd: ROOT,
        env: {
          ...env(),
          SVC_WEBHOOK_SECRET: sb.webhook_secret,
          NO_COLOR: '1',
          PATH: process.env.PATH,
        },
        extendEnv: false,
        reject: false,
        buffer: false,
        stdin: 'ignore',
      },
    );
    let listenErr = '';
    let listenOut = '';
    listen.stdout!.on('data', (d) => (listenOut += String(d)));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`listen did not start: ${listenErr}`)),
        20_000,
      );
      listen.stderr!.on('data', (d) => {
        listenErr += String(d);
        const m = /Esperando notificaciones en (http:\/\/\S+)/.exec(listenErr);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
      void listen.then(() => reject(new Error(`listen exited: ${listenErr}`)));
    });
    try {
      const views = [procView(listen.pid!), procView(sb.proc.pid!)];
      for (const v of views) expectClean('a long-running process argv/title', v);
      expect(views.join('\n')).toMatch(/webhook listen|svc/); // the view is real

      const trigger = record(
        'webhook trigger',
        await svc(['webhook', 'trigger', 'payment.approved', '--forward-to', url, '--debug'], {
          env: env(),
        }),
      );
      expect(trigger.exitCode, trigger.stderr).toBe(0);
      // And one from the sandbox itself, signed with its secret.
      const hook = await sb.api('POST', '/_sandbox/webhook', { url });
      expect(hook.status, hook.text).toBe(200);
      const c = await sb.api('POST', '/v1/cobros', { concepto: 'notif', monto: '5.00' });
      await sb.api('POST', `/_sandbox/cobros/${c.body.data.id}/pagar`, {});
      const deadline = Date.now() + 15_000;
      while (lines(listenOut).length < 2 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
      expect(lines(listenOut).length).toBeGreaterThanOrEqual(2);
    } finally {
      listen.kill('SIGTERM');
      await listen;
    }
    outputs.push(
      { what: 'webhook listen (stdout)', text: listenOut },
      { what: 'webhook listen (stderr)', text: listenErr },
    );
    expectNoStack(listenErr);

    expect(existsSync(journal)).toBe(true);
    const eventos = record(
      'webhook eventos',
      await svc(['webhook', 'eventos', '--journal', journal], { env: env() }),
    );
    expect(eventos.exitCode, eventos.stderr).toBe(0);
    const eventosJson = record(
      'webhook eventos --json',
      await svc(['webhook', 'eventos', '--journal', journal, '--json'], { env: env() }),
    );
    expect(eventosJson.exitCode, eventosJson.stderr).toBe(0);
  });

  it('nothing printed by any of the runs above contains a key or the secret', () => {
    expect(outputs.length).toBeGreaterThan(30);
    for (const o of outputs) expectClean(o.what, o.text);
  });

  it('no file in the config or data folders but config.json holds a secret, names included; the journal neither', () => {
    const files = [...walk(configDir), ...walk(dataDir)];
    expect(files).toContain(journal);
    for (const f of files) {
      const name = relative(configDir, f).startsWith('..')
        ? relative(dataDir, f)
        : relative(configDir, f);
      expectClean(`file name ${f}`, name);
      if (f === join(configDir, 'config.json') || statSync(f).isDirectory()) continue;
      expectClean(`file ${f}`, readFileSync(f, 'latin1'));
    }
    expectClean('journal', readFileSync(journal, 'utf8'));
    expect(readFileSync(journal, 'utf8').trim().split('\n').length).toBeGreaterThanOrEqual(2);
  });

  it('four `svc login` at once into one config file leave a valid 0600 file with all four profiles', async () => {
    const dir = tempDir('svc-secrets-race-');
    const names = ['uno', 'dos', 'tres', 'cuatro'];
    const rs = await Promise.all(
      names.map((p) =>
        svc(['login', '--with-key-stdin', '--base-url', sb.base_url, '--profile', p], {
          env: { SVC_CONFIG_DIR: dir },
          input: `${sb.api_key}\n`,
        }),
      ),
    );
    rs.forEach((r, i) => expect(r.exitCode, `${names[i]}: ${r.stderr}`).toBe(0));
    for (const r of rs) expectClean('concurrent login', r.stdout + r.stderr);
    const file = join(dir, 'config.json');
    const config = JSON.parse(readFileSync(file, 'utf8'));
    expect(Object.keys(config.profiles).sort()).toEqual([...names].sort());
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    // No temp or lock file left behind.
    expect(readdirSync(dir).filter((n) => n !== 'config.json')).toEqual([]);
  });
});

function lines(text: string): string[] {
  return text.split('\n').filter((l) => l.trim() !== '');
}
