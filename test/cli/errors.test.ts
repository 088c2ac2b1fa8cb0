// Service errors are a class per code from one factory (src/api/service-errors.ts): a command
// and `svc api` give the same exit code for the same answer, the library's errors name
// no svc command (the CLI adds the `→` hint), and every command that takes a --monto,
// a --port or a target URL refuses a bad one with the same line. In-process: main().
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svc } from '../helpers/inproc.js';
import { report } from '../../src/cli/report.js';
import { createIO } from '../../src/output/io.js';
import { Client } from '../../src/index.js';

/** svc in-process, its exit code as `code`. */
async function cli(args: string[], env: Record<string, string> = {}) {
  const r = await svc(args, { env });
  return { code: r.exitCode, stdout: r.stdout, stderr: r.stderr };
}

// A service that answers every request with the status and body under test.
let answer: { status: number; body: unknown } = { status: 200, body: {} };
let server: Server;
let env: Record<string, string>;
beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () =>
      res
        .writeHead(answer.status, { 'content-type': 'application/json' })
        .end(JSON.stringify(answer.body)),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  env = {
    SVC_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    SVC_API_KEY: 'svc_test_abcdefgh12345678',
    SVC_RETRY_BACKOFF_MS: '0',
  };
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('service errors by class', () => {
  const cases: [number, string, number][] = [
    [401, 'unauthorized', 3],
    [403, 'comercio_no_listo', 4],
    [404, 'not_found', 5],
    [400, 'create_failed', 1],
    [409, 'refund_failed', 1],
    // A status the class follows when the code is not one svc knows.
    [401, 'invalid_key', 3],
    [404, 'gone', 5],
  ];
  it.each(cases)(
    'HTTP %i %s: exit %i from a command and from svc api alike',
    async (status, error, exit) => {
      answer = { status, body: { error, message: 'm' } };
      const viaCommand = await cli(['cuenta'], env);
      const viaApi = await cli(['api', 'GET', '/v1/cuenta'], env);
      expect(viaCommand.stderr.split('\n')[0]).toBe(`error: ${error} (HTTP ${status}): "m"`);
      expect([viaCommand.code, viaApi.code]).toEqual([exit, exit]);
    },
  );

  it('the CLI adds which svc command helps; the library error names none', async () => {
    answer = { status: 401, body: { error: 'unauthorized', message: 'bad key' } };
    const r = await cli(['cuenta'], env);
    expect(r.stderr).toBe(
      'error: unauthorized (HTTP 401): "bad key"\n→ revisá la clave con `svc login` o la variable SVC_API_KEY\n',
    );
    const err = await new Client({ baseUrl: env.SVC_BASE_URL!, apiKey: env.SVC_API_KEY })
      .cuenta()
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'ApiError', http: 401, error: 'unauthorized', exitCode: 3 });
    expect(
      `${(err as Error).message} ${(err as { suggestion?: string }).suggestion ?? ''}`,
    ).not.toMatch(/`svc /);
  });

  it('nothing configured: the address, then the key, each with the command that fixes it', async () => {
    const noAddress = await cli(['cuenta'], { SVC_API_KEY: env.SVC_API_KEY! });
    expect(noAddress.code).toBe(2);
    expect(noAddress.stderr).toMatch(
      /^error: no hay dirección del servicio configurada para el perfil "default"\n→ corré `svc login --base-url/,
    );
    const noKey = await cli(['cuenta'], { SVC_BASE_URL: env.SVC_BASE_URL! });
    expect(noKey.code).toBe(3);
    expect(noKey.stderr).toBe(
      'error: no hay clave configurada para el perfil "default"\n→ corré `svc login` o definí SVC_API_KEY\n',
    );
  });
});

describe('one check per kind of value', () => {
  it('--monto: the same line from crear, devolver, sandbox pagar and webhook trigger, before any request', async () => {
    const lines = await Promise.all(
      [
        ['cobro', 'crear', '--concepto', 'x', '--monto', '1,5'],
        ['devolver', '1', '--monto', '1,5'],
        ['sandbox', 'pagar', '1', '--monto', '1,5'],
        [
          'webhook',
          'trigger',
          'payment.approved',
          '--monto',
          '1,5',
          '--forward-to',
          'http://127.0.0.1:9/',
        ],
      ].map(async (args) => {
        const r = await cli(args, env);
        expect(r.code, args.join(' ')).toBe(2);
        return r.stderr.split('\n')[0];
      }),
    );
    expect(new Set(lines)).toEqual(
      new Set(['error: --monto: "1,5" usa coma: el separador decimal es el punto (ej. 1500.50)']),
    );
  });

  it('--port and --host: the same line from svc sandbox and svc webhook listen', async () => {
    for (const [flag, value, line] of [
      ['--port', '70000', 'error: --port "70000" no es válido (0 a 65535; 0 elige uno libre)'],
      ['--host', 'a b', 'error: --host "a b" no es una dirección válida (ej. 127.0.0.1)'],
    ]) {
      for (const cmd of [['sandbox'], ['webhook', 'listen', '--secret-from-env']]) {
        const r = await cli([...cmd, flag!, value!], { SVC_WEBHOOK_SECRET: 's' });
        expect([r.code, r.stderr.split('\n')[0]], cmd.join(' ')).toEqual([2, line]);
      }
    }
  });

  it('a target URL: the same line from listen, trigger and replay', async () => {
    for (const cmd of [
      ['webhook', 'listen'],
      ['webhook', 'trigger', 'payment.approved'],
      ['webhook', 'replay', '--all'],
    ]) {
      const r = await cli([...cmd, '--forward-to', 'ftp://x', '--secret-from-env'], {
        SVC_WEBHOOK_SECRET: 's',
      });
      expect([r.code, r.stderr.split('\n')[0]], cmd.join(' ')).toEqual([
        2,
        'error: --forward-to "ftp://x" no es una URL http(s) (ej. http://localhost:3000/webhooks)',
      ]);
    }
  });
});

// One error family (src/errors.ts SvcError): whoever throws names the exit code and the
// JSON name; report.ts only reads them. Each name a script can meet is in docs/salida-y-codigos.md.
describe("one error family: the JSON name is the error's own", () => {
  const readme = readFileSync(new URL('../../docs/salida-y-codigos.md', import.meta.url), 'utf8');
  const table = readme.slice(readme.indexOf('| nombre | salida | cuándo |'));
  const documented = new Set(
    [...table.slice(0, table.indexOf('\n\n')).matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!),
  );

  function sources(dir: string): string[] {
    return readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
    });
  }

  it("every name an error of svc is given in the code is in docs/salida-y-codigos.md's table", () => {
    const src = new URL('../../src', import.meta.url).pathname;
    const named = new Set<string>();
    for (const file of sources(src)) {
      for (const m of readFileSync(file, 'utf8').matchAll(/\bexit: EXIT\.\w+, code: '([a-z_]+)'/g))
        named.add(m[1]!);
    }
    expect(named.size).toBeGreaterThan(8);
    expect([...named].filter((n) => !documented.has(n))).toEqual([]);
  });

  const json = async (args: string[], extra: Record<string, string> = {}) => {
    const r = await cli(['--json', ...args], {
      ...env,
      SVC_WEBHOOK_SECRET: 'whsec_test_0123456789abcdef',
      ...extra,
    });
    return {
      code: r.code,
      body: JSON.parse(r.stderr.trim().split('\n').pop()!) as { error: string; message: string },
    };
  };

  it('a refused app, an unreachable one, a code nobody has: each its own name and code, all documented', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));

    answer = { status: 500, body: { ok: false } };
    const refused = await json([
      'webhook',
      'trigger',
      'payment.approved',
      '--forward-to',
      `${env.SVC_BASE_URL}/hook`,
    ]);
    const unreachable = await json([
      'webhook',
      'trigger',
      'payment.approved',
      '--forward-to',
      `http://127.0.0.1:${closedPort}/hook`,
    ]);
    answer = { status: 200, body: { data: [] } };
    const missing = await json(['cobro', 'ver', 'ZZZZ9999ZZ']);
    const seen = [refused, unreachable, missing].map((r) => [r.code, r.body.error]);
    expect(seen).toEqual([
      [1, 'app_refused'],
      [6, 'app_unreachable'],
      [5, 'not_found'],
    ]);
    for (const [, name] of seen) expect(documented.has(name as string), String(name)).toBe(true);
  });

  it('what is not of the family is "unexpected", never a name guessed from a number', () => {
    let err = '';
    const stderr = { write: (t: string) => ((err += t), true) } as unknown as NodeJS.WritableStream;
    const io = createIO(
      { stdout: process.stdout, stderr, stdin: process.stdin },
      { NO_COLOR: '1' },
    );
    const code = report(Object.assign(new Error('boom'), { exitCode: 5 }), io, true, false);
    expect([code, JSON.parse(err).error]).toEqual([1, 'unexpected']);
  });
});
