// A hostile server in front of the sandbox, against the built CLI: replies over the
// size cap (lowered to 1 MiB with SVC_MAX_REPLY_BYTES so only a few MB move),
// refund POSTs answered with garbage or too much, every POST's unknown outcome, an
// address's password under --debug, very long service messages, and the last-resort
// handler for errors nobody caught.
import { execa } from 'execa';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, expectNoStack, svcSpawned, tempDir } from '../helpers/cli.js';
// Cases run in-process through main() (svc); spawned() runs the built binary, once per behaviour.
import { svc } from '../helpers/inproc.js';
import { startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';
import { closedPort, expectOneErrorLine, lines, pool } from '../helpers/fixtures.js';
import { bigItem, bigList, startHostile, type Answer, type Hostile } from './hostile.js';

const MiB = 1024 * 1024;
const CAP = { SVC_MAX_REPLY_BYTES: String(MiB) };
let sb: InProcessSandbox;
let hostile: Hostile;
let env: Record<string, string>;
let cobro: Record<string, unknown>;
let devolucion: Record<string, unknown>;

/** A new paid request (1000.00), so each case refunds its own. */
async function paid(): Promise<number> {
  const r = await sb.api('POST', '/v1/cobros', { concepto: 'Pedido hostil', monto: '1000.00' });
  const id = r.body.data.id as number;
  const p = await sb.api('POST', `/_sandbox/cobros/${id}/pagar`, {});
  if (p.status !== 200) throw new Error(p.text);
  return id;
}

const count = (request: string) => hostile.seen.filter((s) => s === request).length;

beforeAll(async () => {
  sb = await startSandbox();
  hostile = await startHostile(sb.baseUrl);
  env = {
    SVC_BASE_URL: hostile.baseUrl,
    SVC_API_KEY: sb.apiKey,
    SVC_RETRY_BACKOFF_MS: '1',
    ...CAP,
  };
  const id = await paid();
  cobro = (await sb.api('GET', `/v1/cobros/${id}`)).body.data;
  devolucion = (await sb.api('POST', `/v1/cobros/${id}/devoluciones`, { monto: '1.00' })).body.data;
});
afterAll(async () => {
  await hostile?.close();
  await sb?.close();
});

describe('a reply larger than svc reads (SVC_MAX_REPLY_BYTES, default 256 MiB)', () => {
  it('one record streamed or announced, or one item of a list: exit 6, one error line naming the cap, the GET not retried', async () => {
    const id = cobro.id as number;
    hostile.on(
      'GET',
      '/v1/cobros',
      bigList({ ...cobro, concepto: 'x'.repeat(MiB) }, 3 * MiB, false),
    );
    hostile.on('GET', `/v1/cobros/${id}`, bigItem(cobro, 3 * MiB, true));
    const [list, one, json] = await Promise.all([
      svc(['cobro', 'listar'], { env }),
      svc(['cobro', 'ver', String(id)], { env }),
      svc(['cobro', 'listar', '--json'], { env }),
    ]);
    hostile.clear();
    expectOneErrorLine(
      list,
      6,
      /^error: GET \/v1\/cobros: la respuesta de 127\.0\.0\.1:\d+ supera 1 MiB, el máximo que svc lee; no es una respuesta del servicio$/,
      'listar, an item past the cap',
    );
    expectOneErrorLine(
      one,
      6,
      new RegExp(
        `^error: GET /v1/cobros/${id}: la respuesta de 127\\.0\\.0\\.1:\\d+ supera 1 MiB \\(anuncia 3 MiB\\), el máximo que svc lee; no es una respuesta del servicio$`,
      ),
      'ver, announced',
    );
    expect(json.exitCode, json.stderr).toBe(6);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: 'too_large' });
    expect(count('GET /v1/cobros'), 'a reply too large does not heal by asking again').toBe(2);
    expect(count(`GET /v1/cobros/${id}`)).toBe(1);
  });

  it('a list longer than the cap is read whole: its items are read as they arrive', async () => {
    const big = bigList(cobro, 3 * MiB, false);
    const copies = (big as { head: string }).head.split('},{').length;
    for (const declare of [false, true]) {
      hostile.on('GET', '/v1/cobros', bigList(cobro, 3 * MiB, declare));
      const r = await svc(['cobro', 'listar', '--json'], { env });
      hostile.clear();
      expect(r.exitCode, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout), declare ? 'announced' : 'streamed').toHaveLength(copies);
    }
  });
});

describe('a refund POST answered with garbage or too much: "puede haberse hecho o no", exit 6, one POST', () => {
  const cases: [string, () => Answer][] = [
    ['a valid refund padded past the cap, streamed', () => bigItem(devolucion, 3 * MiB, false)],
    ['a valid refund padded past the cap, announced', () => bigItem(devolucion, 3 * MiB, true)],
    [
      'a refund whose monto is "10.001"',
      () => ({
        kind: 'respond',
        status: 201,
        body: JSON.stringify({ data: { ...devolucion, monto: '10.001' } }),
      }),
    ],
    [
      'a refund whose monto is "-5.00"',
      () => ({
        kind: 'respond',
        status: 201,
        body: JSON.stringify({ data: { ...devolucion, monto: '-5.00' } }),
      }),
    ],
    ['a body that is not JSON', () => ({ kind: 'respond', status: 201, body: '\u0000garbage{{{' })],
    [
      'bytes that are not HTTP',
      () => ({ kind: 'not-http', bytes: 'SSH-2.0-OpenSSH_9.6\r\n\u0000\u0001\u0002' }),
    ],
  ];
  it(`${cases.map(([name]) => name).join('; ')}`, async () => {
    const ids = await Promise.all(cases.map(() => paid()));
    cases.forEach(([, answer], i) =>
      hostile.on('POST', `/v1/cobros/${ids[i]}/devoluciones`, answer()),
    );
    const results = await pool(cases, 3, (_c, i) =>
      svc(['devolver', String(ids[i]), '--monto', '0.01'], { env }),
    );
    hostile.clear();
    cases.forEach(([name], i) => {
      const id = ids[i]!;
      const r = results[i]!;
      expectOneErrorLine(
        r,
        6,
        new RegExp(
          `^error: la devolución de 0\\.01 del cobro ${id} puede haberse hecho o no \\(.+\\); no la repitas sin verificar$`,
        ),
        name,
        { preamble: true },
      );
      expect(lines(r.stderr).at(-1), name).toBe(
        `→ para verificar: svc devoluciones listar --cobro ${id}  o  svc cobro ver ${id}`,
      );
      expect(count(`POST /v1/cobros/${id}/devoluciones`), `${name}: POSTs seen`).toBe(1);
    });
  });
});

describe('every other POST whose reply is too large to read: the outcome is unknown, with the command to check', () => {
  it('cobro crear, sync, svc api POST: exit 6, "puede haber… o no", one POST each', async () => {
    const [a, b] = await Promise.all([paid(), paid()]);
    hostile.on('POST', '/v1/cobros', bigItem(cobro, 3 * MiB, false));
    hostile.on('POST', `/v1/cobros/${a}/sync`, bigItem(cobro, 3 * MiB, true));
    hostile.on('POST', `/v1/cobros/${b}/sync`, bigItem(cobro, 3 * MiB, false));
    const [crear, sync, api] = await Promise.all([
      svc(['cobro', 'crear', '--concepto', 'Pedido 77', '--monto', '15.00'], { env }),
      svc(['sync', String(a)], { env }),
      svc(['api', 'POST', `/v1/cobros/${b}/sync`], { env }),
    ]);
    hostile.clear();
    expectOneErrorLine(
      crear,
      6,
      /^error: el cobro de 15\.00 puede haberse creado o no \(POST \/v1\/cobros: .*supera 1 MiB.*\); no lo repitas sin verificar$/,
      'crear',
    );
    expect(lines(crear.stderr).at(-1)).toBe("→ para verificar: svc cobro listar --q 'Pedido 77'");
    expectOneErrorLine(
      sync,
      6,
      new RegExp(
        `^error: la sincronización del cobro ${a} puede haberse hecho o no \\(.*supera 1 MiB.*\\)`,
      ),
      'sync',
    );
    expect(lines(sync.stderr).at(-1)).toBe(`→ para verificar: svc cobro ver ${a}`);
    expectOneErrorLine(
      api,
      6,
      new RegExp(
        `^error: POST /v1/cobros/${b}/sync puede haberse hecho o no \\(.*supera 1 MiB.*\\); no lo repitas sin verificar$`,
      ),
      'api',
    );
    expect(lines(api.stderr).at(-1)).toBe(`→ para verificar: svc cobro ver ${b}`);
    expect([
      count('POST /v1/cobros'),
      count(`POST /v1/cobros/${a}/sync`),
      count(`POST /v1/cobros/${b}/sync`),
    ]).toEqual([1, 1, 1]);
  });
});

describe('an address with a user and password (https://user:pass@host) is never shown', () => {
  const USER = 'usr-HIDDEN-4417';
  const PASS = 'pwd-HIDDEN-9921';
  const withSecret = (base: string) => base.replace('http://', `http://${USER}:${PASS}@`);
  const WHSEC = `whsec_${'ab'.repeat(24)}`;

  it('--debug lines, results, errors and config echoes of many commands', async () => {
    const id = await paid();
    const url = withSecret(sb.baseUrl);
    const dir = tempDir('svc-config-');
    const port = await closedPort();
    const base = { SVC_API_KEY: sb.apiKey, SVC_RETRY_BACKOFF_MS: '1', SVC_CONFIG_DIR: dir };
    const runs: [string, string[], Record<string, string>, string?][] = [
      [
        'login',
        ['login', '--with-key-stdin', '--base-url', url, '--debug'],
        { SVC_CONFIG_DIR: dir },
        `${sb.apiKey}\n`,
      ],
      [
        'login --json',
        ['login', '--with-key-stdin', '--base-url', url, '--json'],
        { SVC_CONFIG_DIR: tempDir('svc-config-') },
        `${sb.apiKey}\n`,
      ],
      ['salud', ['salud', '--debug'], { ...base, SVC_BASE_URL: url }],
      ['cuenta', ['cuenta', '--debug'], { ...base, SVC_BASE_URL: url }],
      ['cobro listar', ['cobro', 'listar', '--debug'], { ...base, SVC_BASE_URL: url }],
      [
        'cobro crear',
        ['cobro', 'crear', '--concepto', 'x', '--monto', '1.00', '--debug'],
        { ...base, SVC_BASE_URL: url },
      ],
      [
        'devolver',
        ['devolver', String(id), '--monto', '0.01', '--debug'],
        { ...base, SVC_BASE_URL: url },
      ],
      ['api', ['api', 'GET', '/v1/cuenta', '--debug'], { ...base, SVC_BASE_URL: url }],
      ['--base-url', ['cuenta', '--debug', '--base-url', url], base],
      [
        'connection refused',
        ['cuenta', '--debug'],
        { ...base, SVC_BASE_URL: withSecret(`http://127.0.0.1:${port}`) },
      ],
      [
        'connection refused --json',
        ['cuenta', '--json'],
        { ...base, SVC_BASE_URL: withSecret(`http://127.0.0.1:${port}`) },
      ],
      [
        'an address that does not parse',
        ['cuenta', '--debug'],
        { ...base, SVC_BASE_URL: withSecret('http://127.0.0.1:999999') },
      ],
      [
        'plain http off loopback',
        ['cuenta', '--debug'],
        { ...base, SVC_BASE_URL: withSecret('http://svc.example') },
      ],
      [
        'no scheme',
        ['cuenta', '--debug'],
        { ...base, SVC_BASE_URL: `${USER}:${PASS}@svc.example` },
      ],
      // A webhook target's address: the line per delivery, a refused connection, a non-2xx answer.
      [
        'webhook trigger refused',
        [
          'webhook',
          'trigger',
          'payment.approved',
          '--forward-to',
          withSecret(`http://127.0.0.1:${port}/hook`),
        ],
        { ...base, SVC_WEBHOOK_SECRET: WHSEC },
      ],
      [
        'webhook trigger 404',
        ['webhook', 'trigger', 'payment.approved', '--forward-to', `${url}/no-such-hook`],
        { ...base, SVC_WEBHOOK_SECRET: WHSEC },
      ],
      [
        'webhook trigger --json',
        ['webhook', 'trigger', 'payment.approved', '--forward-to', `${url}/no-such-hook`, '--json'],
        { ...base, SVC_WEBHOOK_SECRET: WHSEC },
      ],
    ];
    // login first: perfil listar then shows the stored profile.
    const first = await svcSpawned(runs[0]![1], { env: runs[0]![2], input: runs[0]![3] });
    const rest = await pool(runs.slice(1), 4, ([, args, e, input]) =>
      svc(args, { env: e, ...(input ? { input } : {}) }),
    );
    const perfil = await svc(['perfil', 'listar'], { env: { SVC_CONFIG_DIR: dir } });
    const perfilJson = await svc(['perfil', 'listar', '--json'], { env: { SVC_CONFIG_DIR: dir } });
    const all: [string, { exitCode: number; stdout: string; stderr: string }][] = [
      [runs[0]![0], first],
      ...runs.slice(1).map(([name], i) => [name, rest[i]!] as [string, (typeof rest)[number]]),
      ['perfil listar', perfil],
      ['perfil listar --json', perfilJson],
    ];
    for (const [name, r] of all) {
      const out = `${name}\nexit ${r.exitCode}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;
      expectNoStack(r.stderr);
      expect(r.stdout + r.stderr, out).not.toContain(PASS);
      expect(r.stdout + r.stderr, out).not.toContain(USER);
    }
    // The address is shown, with its userinfo hidden.
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stderr).toContain(
      `--> GET ${sb.baseUrl.replace('http://', 'http://***@')}/v1/cuenta`,
    );
    expect(first.stderr).toContain(`· ${sb.baseUrl.replace('http://', 'http://***@')}`);
    expect(perfil.stdout).toContain(sb.baseUrl.replace('http://', 'http://***@'));
    expect(JSON.parse(perfilJson.stdout)[0].base_url).toBe(
      sb.baseUrl.replace('http://', 'http://***@'),
    );
    const salud = rest[1]!;
    expect(salud.stdout).toMatch(/^dirección\thttp:\/\/\*\*\*@127\.0\.0\.1:\d+$/m);
  });
});

describe('a service error message of several KiB', () => {
  it('is shortened on the terminal, saying how many characters were cut; --json keeps it whole', async () => {
    const message = `el pedido no se pudo procesar: ${'detalle '.repeat(1250)}fin`;
    hostile.on('GET', '/v1/cuenta', {
      kind: 'respond',
      status: 400,
      body: JSON.stringify({ error: 'bad_request', message }),
    });
    const [text, json] = await Promise.all([
      svc(['cuenta'], { env }),
      svc(['cuenta', '--json'], { env }),
    ]);
    hostile.clear();
    const line = expectOneErrorLineLong(text, 1);
    const whole = `error: bad_request (HTTP 400): "${message}"`;
    const cut = whole.length - 'error: '.length - 2000;
    expect(line).toBe(
      `${whole.slice(0, 'error: '.length + 2000)}… (${cut} caracteres más; --json lo muestra entero)`,
    );
    expect(json.exitCode).toBe(1);
    expect(JSON.parse(json.stderr)).toEqual({ error: 'bad_request', message });
  });
});

/** One error line, allowed to be long (the shortened one is up to 2,000 characters). */
function expectOneErrorLineLong(
  r: { exitCode: number; stdout: string; stderr: string },
  exit: number,
): string {
  expectNoStack(r.stderr);
  expect(r.exitCode, r.stderr).toBe(exit);
  expect(r.stdout).toBe('');
  const ls = lines(r.stderr);
  expect(ls, r.stderr).toHaveLength(1);
  return ls[0]!;
}

describe('the last resort: an error nobody caught', () => {
  const entry = join(ROOT, 'dist', 'cli', 'entry.cjs');
  const script = (writes: string, fail: string) =>
    `const { run } = await import(${JSON.stringify(entry)}); await run(['--help'], ${writes}); ${fail};`;
  const node = (code: string, args: string[] = []) =>
    execa('node', ['--input-type=module', '-e', code, ...args], {
      reject: false,
      env: { NO_COLOR: '1' },
    });

  it('an uncaught exception: one error line, exit 1, no stack, no password', async () => {
    const r = await node(
      script(
        '[]',
        "setTimeout(() => { throw new Error('boom en http://u:pwd-HIDDEN-1@h.example/x') }, 10)",
      ),
    );
    expectNoStack(r.stderr);
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.stdout).toContain('svc');
    expect(lines(r.stderr)).toEqual([
      'error: error inesperado: boom en http://***@h.example/x (corré con --debug para más detalle)',
    ]);
  });

  it('an unhandled rejection after a refund POST was sent: exit 6, may or may not, the command to check', async () => {
    const writes = JSON.stringify([
      { method: 'POST', path: '/v1/cobros/7/devoluciones', sent: true },
    ]);
    const r = await node(script(writes, "Promise.reject(new TypeError('x is not a function'))"));
    expectNoStack(r.stderr);
    expect(r.exitCode, r.stderr).toBe(6);
    expect(lines(r.stderr)).toEqual([
      'error: error inesperado después de enviar POST /v1/cobros/7/devoluciones: x is not a function; puede haberse hecho o no: no lo repitas sin verificar',
      '→ para verificar: svc devoluciones listar --cobro 7  o  svc cobro ver 7',
    ]);
  });
});
