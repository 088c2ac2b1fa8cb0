// Faults, write commands and the rest: cobro crear / sync / devolver against every
// injected fault (a POST is never retried: exactly one reaches the service), no
// service at the address (closed port, unknown host, plain http off loopback),
// retries that heal, and --json errors that stay machine-readable.
import { describe, expect, it } from 'vitest';
import { svcSpawned } from '../helpers/cli.js';
import { svc } from '../helpers/inproc.js';
import {
  ARMED,
  BASE_ENV,
  CONCURRENCY,
  FAULTS,
  GET_BUDGET,
  OUTCOME_UNKNOWN,
  READS,
  WRITES,
  runCmd,
  runWithFault,
} from './fault-cases.js';
import type { InProcessSandbox } from '../helpers/sandbox.js';
import {
  closedPort,
  expectOneErrorLine,
  faultSandbox,
  lines,
  pool,
  type Fixture,
} from '../helpers/fixtures.js';

let sb: InProcessSandbox;
let fx: Fixture;

faultSandbox((s, f) => ((sb = s), (fx = f)));

describe('write commands (POST) under every injected fault: never retried', () => {
  for (const f of FAULTS) {
    it(`${f.key}: one POST, the documented exit, one error line`, async () => {
      await sb.clearFaults();
      const results = await pool(WRITES, CONCURRENCY, (cmd) => runWithFault(sb, fx, cmd, f));
      await sb.clearFaults();
      WRITES.forEach((cmd, i) => {
        const { r, attempts } = results[i]!;
        const what = `svc ${cmd.args(fx).join(' ')} with ${f.key}`;
        if (cmd.name === 'devolver' && f.outcomeUnknown) {
          expectOneErrorLine(r, 6, OUTCOME_UNKNOWN, what, { preamble: true });
          expect(lines(r.stderr).at(-1), what).toMatch(
            new RegExp(`^→ para verificar: .*svc cobro ver ${fx.refundableId}`),
          );
        } else {
          const w = f.write ?? f;
          expectOneErrorLine(r, w.exit, w.line, what, { preamble: cmd.preamble });
        }
        // Never retried. A 300 ms timeout on a loaded machine may abort the one POST
        // before it reaches the service, so there "at most one" is what can be asserted.
        if (f.getAttemptsAtLeast !== undefined)
          expect(attempts, `${cmd.name} POST attempts with ${f.key}`).toBeLessThanOrEqual(1);
        else expect(attempts, `${cmd.name} POST attempts with ${f.key}`).toBe(1);
      });
    });
  }
});

describe('no service at the address', () => {
  const all = [...READS, ...WRITES];
  it('connection refused (closed loopback port): exit 6, says so, for every command', async () => {
    const port = await closedPort();
    const results = await pool(all, CONCURRENCY, (cmd) =>
      runCmd(sb, fx, cmd, { SVC_BASE_URL: `http://127.0.0.1:${port}` }, true),
    );
    all.forEach((cmd, i) => {
      expectOneErrorLine(
        results[i]!,
        6,
        new RegExp(
          `^error: no se pudo conectar con 127\\.0\\.0\\.1:${port} \\(conexión rechazada\\)`,
        ),
        `svc ${cmd.name} refused`,
      );
    });
  });

  it('unknown host (https://svc-no-such-host.invalid): exit 6, names the host, for every command', async () => {
    const results = await pool(all, CONCURRENCY, (cmd) =>
      runCmd(sb, fx, cmd, { SVC_BASE_URL: 'https://svc-no-such-host.invalid' }),
    );
    all.forEach((cmd, i) => {
      expectOneErrorLine(
        results[i]!,
        6,
        /^error: no se encontró el host svc-no-such-host\.invalid/,
        `svc ${cmd.name} unknown host`,
      );
    });
  });

  it('plain http to a host that is not loopback: refused before any request (exit 2)', async () => {
    const r = await svc(['cuenta'], {
      env: { ...sb.env, SVC_BASE_URL: 'http://svc-no-such-host.invalid' },
    });
    expectOneErrorLine(
      r,
      2,
      /usa http sin cifrar: la clave viajaría en claro/,
      'http non-loopback',
    );
  });
});

describe('retries', () => {
  it('a GET that meets one 503 (Retry-After: 0) succeeds on the second attempt', async () => {
    await sb.clearFaults();
    const before = (await sb.apiLog()).length;
    await sb.fault({
      method: 'GET',
      path: '/v1/cuenta',
      count: 1,
      action: 'respond',
      status: 503,
      headers: { 'Retry-After': '0' },
    });
    const r = await svc(['cuenta', '--json'], { env: { ...sb.env, ...BASE_ENV } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: expect.any(Number), puede_cobrar: true });
    const seen = (await sb.apiLog()).slice(before).filter((e) => e.path === '/v1/cuenta');
    expect(seen.map((e) => e.status)).toEqual([503, 200]);
  });

  it('a GET that meets one cut connection succeeds on the second attempt', async () => {
    await sb.clearFaults();
    const before = (await sb.apiLog()).length;
    await sb.fault({ method: 'GET', path: '/v1/cargos', count: 1, action: 'cut' });
    const r = await svc(['cargos', '--json'], { env: { ...sb.env, ...BASE_ENV } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(Array.isArray(JSON.parse(r.stdout))).toBe(true);
    const seen = (await sb.apiLog()).slice(before).filter((e) => e.path === '/v1/cargos');
    expect(seen.map((e) => e.status)).toEqual([null, 200]);
  });

  it('a GET that keeps timing out uses its whole budget (3 attempts), then exit 6', async () => {
    await sb.clearFaults();
    const id = await sb.fault({
      method: 'GET',
      path: '/v1/cuenta',
      count: ARMED,
      action: 'delay',
      delay_ms: 4000,
    });
    const r = await svc(['cuenta'], { env: { ...sb.env, ...BASE_ENV, SVC_TIMEOUT_MS: '1000' } });
    const left = (await sb.faultsLeft()).get(id) ?? 0;
    await sb.clearFaults();
    expectOneErrorLine(
      r,
      6,
      /sin respuesta de 127\.0\.0\.1:\d+ en \d+\.\d s \(3 intentos de 1 s\)/,
      'cuenta timing out',
    );
    expect(ARMED - left).toBe(GET_BUDGET);
  });

  it('a POST that meets one 503 is not retried: exactly one POST in the log', async () => {
    await sb.clearFaults();
    const before = (await sb.apiLog()).length;
    const path = `/v1/cobros/${fx.cobroId}/sync`;
    await sb.fault({
      method: 'POST',
      path,
      count: 1,
      action: 'respond',
      status: 503,
      headers: { 'Retry-After': '0' },
    });
    const r = await svc(['sync', String(fx.cobroId)], { env: { ...sb.env, ...BASE_ENV } });
    expectOneErrorLine(r, 6, /puede haberse hecho o no \(.*HTTP 503/, 'sync with one 503');
    const posts = (await sb.apiLog())
      .slice(before)
      .filter((e) => e.method === 'POST' && e.path === path);
    expect(posts).toEqual([expect.objectContaining({ status: 503 })]);
    // And the next sync goes through (the fault was used once, nothing is stuck).
    const again = await svc(['sync', String(fx.cobroId), '--json'], {
      env: { ...sb.env, ...BASE_ENV },
    });
    expect(again.exitCode, again.stderr).toBe(0);
  });
});

describe('--json keeps errors machine-readable', () => {
  it('a service error: its body as JSON on stderr, nothing on stdout', async () => {
    await sb.clearFaults();
    await sb.fault({
      method: 'GET',
      path: '/v1/cuenta',
      count: ARMED,
      action: 'respond',
      status: 500,
      body: { error: 'internal_error', message: 'algo se rompió' },
    });
    const r = await svcSpawned(['cuenta', '--json'], { env: { ...sb.env, ...BASE_ENV } });
    await sb.clearFaults();
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    expect(lines(r.stderr).map((l) => JSON.parse(l))).toEqual([
      { error: 'internal_error', message: 'algo se rompió' },
    ]);
  });

  it('an HTML page: {error: "not_json", message} on stderr, nothing on stdout', async () => {
    await sb.clearFaults();
    await sb.fault({
      method: 'GET',
      path: '/v1/cobros',
      count: ARMED,
      action: 'respond',
      status: 502,
      body: '<html><body>Bad Gateway</body></html>',
    });
    const r = await svc(['cobro', 'listar', '--json'], { env: { ...sb.env, ...BASE_ENV } });
    await sb.clearFaults();
    expect(r.exitCode).toBe(6);
    expect(r.stdout).toBe('');
    const [body, ...rest] = lines(r.stderr).map((l) => JSON.parse(l));
    expect(rest).toEqual([]);
    expect(body).toMatchObject({ error: 'not_json', message: expect.stringMatching(/HTML/) });
  });
});
