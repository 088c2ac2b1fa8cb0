// The read commands end to end: the built CLI against a real sandbox. `--json` must
// equal the service's `data` byte for byte (order, strings, nulls); piped output is TSV.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoStack, svcSpawned } from '../helpers/cli.js';
import { closedPort } from '../helpers/fixtures.js';
import { svc } from '../helpers/inproc.js';
import { startSandbox, type Sandbox } from '../helpers/sandbox.js';
import { COBRO_FIELDS } from '../sandbox/helpers.js';

let sb: Sandbox;
let cobroId: number;
let otherId: number;

beforeAll(async () => {
  // In this process, cvu and qr ready at once (no ready delay): a record that changes on its own between svc's read and the test's would race.
  sb = await startSandbox();
  const created = await sb.api('POST', '/v1/cobros', {
    concepto: 'Pedido 1042',
    monto: '1500.00',
    referencia: 'pedido-1042',
  });
  expect(created.status).toBe(201);
  cobroId = created.body.data.id;
  expect(
    (
      await sb.api('POST', `/_sandbox/cobros/${cobroId}/pagar`, {
        monto: '1000.00',
        medio: 'credito',
      })
    ).status,
  ).toBe(200);
  expect((await sb.api('POST', `/_sandbox/cobros/${cobroId}/pagar`, { medio: 'qr' })).status).toBe(
    200,
  );
  expect(
    (await sb.api('POST', `/v1/cobros/${cobroId}/devoluciones`, { monto: '100.00' })).status,
  ).toBe(201);
  const other = await sb.api('POST', '/v1/cobros', { concepto: 'Otro', monto: '10.50' });
  otherId = other.body.data.id;
});
afterAll(async () => {
  await sb?.stop();
});

/** A port nothing listens on: bound, then released. */

// The matrices run in-process through main() (svc); the svcSpawned() calls below run the built binary.
const run = (args: string[], env: Record<string, string> = {}) =>
  svc(args, { env: { ...sb.env, ...env } });

/** The CLI's --json output must be the service's data, exactly. */
async function expectSameAsService(args: string[], path: string) {
  const r = await run([...args, '--json']);
  expect(r.exitCode).toBe(0);
  expect(r.stderr).toBe('');
  const served = await sb.api('GET', path);
  expect(JSON.stringify(JSON.parse(r.stdout))).toBe(
    JSON.stringify(served.body.data ?? served.body),
  );
  return JSON.parse(r.stdout);
}

describe('read commands', () => {
  it('salud needs no key and prints the health object unwrapped', async () => {
    const r = await svcSpawned(['salud', '--json'], { env: { SVC_BASE_URL: sb.base_url } });
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, version: expect.any(String) });
    const plain = await svc(['salud'], { env: { SVC_BASE_URL: sb.base_url } });
    expect(plain.stdout).toMatch(/^ok\ttrue$/m);
  });

  it('--json equals the service data for every list and show', async () => {
    await expectSameAsService(['cuenta'], '/v1/cuenta');
    await expectSameAsService(['cargos'], '/v1/cargos');
    const cobros = await expectSameAsService(['cobro', 'listar'], '/v1/cobros');
    expect(cobros.map((c: { id: number }) => c.id)).toEqual([otherId, cobroId]);
    const cobro = await expectSameAsService(
      ['cobro', 'ver', String(cobroId)],
      `/v1/cobros/${cobroId}`,
    );
    expect(Object.keys(cobro)).toEqual(COBRO_FIELDS);
    const tx = await expectSameAsService(['transacciones', 'listar'], '/v1/transacciones');
    expect(tx).toHaveLength(2);
    await expectSameAsService(
      ['transacciones', 'ver', String(tx[0].id)],
      `/v1/transacciones/${tx[0].id}`,
    );
    const devs = await expectSameAsService(['devoluciones', 'listar'], '/v1/devoluciones');
    await expectSameAsService(
      ['devoluciones', 'ver', String(devs[0].id)],
      `/v1/devoluciones/${devs[0].id}`,
    );
    await expectSameAsService(['liquidaciones'], '/v1/liquidaciones');
  });

  it('English aliases work: cobro list / get', async () => {
    const r = await run(['cobro', 'get', String(otherId), '--json']);
    expect(JSON.parse(r.stdout).id).toBe(otherId);
    expect((await run(['cobro', 'ls', '--json'])).exitCode).toBe(0);
  });

  it('filters: --estado, --q, --limit, --medio', async () => {
    const paid = JSON.parse(
      (await run(['cobro', 'listar', '--estado', 'DEVUELTA_PARCIALMENTE', '--json'])).stdout,
    );
    expect(paid.map((c: { id: number }) => c.id)).toEqual([cobroId]);
    const q = JSON.parse((await run(['cobro', 'listar', '--q', 'pedido-1042', '--json'])).stdout);
    expect(q.map((c: { id: number }) => c.id)).toEqual([cobroId]);
    const limited = JSON.parse((await run(['cobro', 'listar', '--limit', '1', '--json'])).stdout);
    expect(limited).toHaveLength(1);
    const qr = JSON.parse(
      (await run(['transacciones', 'listar', '--medio', 'qr', '--json'])).stdout,
    );
    expect(qr.map((t: { medio: string }) => t.medio)).toEqual(['qr']);
    // Values in any case: a person types them as they say them.
    expect((await run(['transacciones', 'listar', '--medio', 'QR', '--json'])).stdout).toBe(
      (await run(['transacciones', 'listar', '--medio', 'qr', '--json'])).stdout,
    );
    expect(
      JSON.parse(
        (await run(['cobro', 'listar', '--estado', 'devuelta_parcialmente', '--json'])).stdout,
      ).map((c: { id: number }) => c.id),
    ).toEqual([cobroId]);
  });

  it('piped output is tab-separated rows without colour', async () => {
    const r = await run(['cobro', 'listar']);
    expect(r.exitCode).toBe(0);
    const rows = r.stdout.trim().split('\n');
    expect(rows).toHaveLength(2);
    // In --csv's order: id, codigo, concepto, monto, monto_cobrado, estado.
    expect(rows[1]!.split('\t').slice(0, 6)).toEqual([
      String(cobroId),
      expect.any(String),
      expect.any(String),
      '1500.00',
      '1500.00',
      'DEVUELTA_PARCIALMENTE',
    ]);
    expect(r.stdout).not.toMatch(/\u001b\[/);
  });

  it('liquidaciones prints exact totals', async () => {
    const data = JSON.parse((await run(['liquidaciones', '--json'])).stdout) as {
      bruto: string;
      te_cobramos: string;
      te_queda: string;
    }[];
    const cents = (s: string) => BigInt(s.replace('.', ''));
    const sum = (f: 'bruto' | 'te_cobramos' | 'te_queda') =>
      data.reduce((a, r) => a + cents(r[f]), 0n);
    const fmt = (c: bigint) => `${c / 100n}.${(c % 100n).toString().padStart(2, '0')}`;
    const r = await run(['liquidaciones']);
    expect(r.stderr).toContain(`bruto ${fmt(sum('bruto'))}`);
    expect(r.stderr).toContain(`te_queda ${fmt(sum('te_queda'))}`);
    expect(fmt(sum('bruto'))).toBe('1500.00');
  });

  it.each([
    [
      ['cobro', 'listar', '--estado', 'pagadas'],
      /"pagadas" no es válido \(¿quisiste decir PAGADA\?\)/,
    ],
    [['transacciones', 'listar', '--medio', 'credto'], /\(¿quisiste decir credito\?\)/],
    [['cobro', 'listar', '--limit', '0'], /--limit/],
    [['cobro', 'ver', 'abc'], /no es un id \(entero positivo\) ni un código de cobro/],
    [['cobro', 'ver', '-1'], /./],
    [['cobro', 'ver', '1.5'], /no es un id/],
    // A value svc does not know is sent as typed (the service may add one: open reading);
    // one a letter away from a known one is a typo, refused with the suggestion.
    [
      ['transacciones', 'listar', '--medio', 'credto'],
      /¿quisiste decir credito\?\); valores posibles: transferencia, qr, debito, credito, prepaga/,
    ],
    [
      ['transacciones', 'listar', '--estado', 'acreditad'],
      /¿quisiste decir ACREDITADO\?\); valores posibles: ACREDITADO, RECHAZADO/,
    ],
    [['cobro', 'ver'], /falta el cobro: su id, su código o --referencia/],
    [['cobro', 'listar', '--nope'], /opción desconocida/],
  ])('bad input %j is refused locally with exit 2', async (args, message) => {
    const r = await run(args);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
    expectNoStack(r.stderr);
  });

  it('maps the service errors to exit codes: 404 → 5, 401 → 3, live key → 3', async () => {
    const missing = await run(['cobro', 'ver', '999999']);
    expect(missing.exitCode).toBe(5);
    expect(missing.stderr).toMatch(/^error: not_found \(HTTP 404\): "no existe"$/m);
    const missingJson = await run(['cobro', 'ver', '999999', '--json']);
    expect(JSON.parse(missingJson.stderr)).toEqual({ error: 'not_found', message: 'no existe' });
    expect(missingJson.stdout).toBe('');
    // The hint names the list where that kind of id is found.
    expect(missing.stderr).toContain('→ revisá el id; `svc cobro listar` muestra los cobros');
    for (const noun of ['transacciones', 'devoluciones']) {
      const r = await run([noun, 'ver', '999999']);
      expect(r.exitCode).toBe(5);
      expect(r.stderr).toContain(`→ revisá el id; \`svc ${noun} listar\` las muestra`);
    }
    // Every hint names a command that helps with what was asked.
    const hints: [string[], number, string][] = [
      [
        ['devolver', String(cobroId), '--monto', '1', '--transaccion', '999999', '--yes'],
        5,
        `→ revisá --transaccion; \`svc transacciones listar --cobro ${cobroId}\` muestra las del cobro`,
      ],
      [
        ['sandbox', 'reenviar', '999999'],
        5,
        '→ revisá el número; `svc sandbox entregas` muestra cada evento con el suyo',
      ],
      [['sync'], 2, '→ ej. svc sync 42, svc sync K7QM3XW9PA'],
      [['caso'], 2, '→ ej. svc caso 42, svc caso K7QM3XW9PA'],
      [
        ['webhook', 'trigger', 'payment.created', '--sandbox'],
        0,
        '→ repetí con --forward-to URL: el sandbox la guarda y se la entrega ahí (sin reiniciarlo)',
      ],
    ];
    // On a terminal, the link is one to share only while the request can be paid.
    const terminal = { SVC_FORCE_TTY: '1', COLUMNS: '100', NO_COLOR: '1' };
    expect((await run(['cobro', 'ver', String(otherId)], terminal)).stdout).toContain(
      'link de pago (compartilo con quien paga):\n',
    );
    const refunded = await run(['cobro', 'ver', String(cobroId)], terminal);
    expect(refunded.stdout).toContain('link de pago:\n');
    expect(refunded.stdout).not.toContain('compartilo');
    for (const [args, code, hint] of hints) {
      const r = await run(args);
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(code);
      expect(r.stderr, args.join(' ')).toContain(hint);
    }
    const bad = await run(['cuenta'], { SVC_API_KEY: 'svc_test_notarealkey000000' });
    expect(bad.exitCode).toBe(3);
    expect(bad.stderr).toContain('unauthorized');
    const live = await run(['cuenta'], { SVC_API_KEY: 'svc_live_notarealkey000000' });
    expect(live.exitCode).toBe(3);
    expect(live.stderr).toContain('MODO LIVE');
    const malformed = await run(['cuenta'], { SVC_API_KEY: 'hola' });
    expect(malformed.exitCode).toBe(2);
    const none = await svc(['cuenta'], { env: { SVC_BASE_URL: sb.base_url } });
    expect(none.exitCode).toBe(3);
    expect(none.stderr).toContain('svc login');
  });

  it('the other merchant sees none of these resources (404, exit 5)', async () => {
    const r = await run(['cobro', 'ver', String(cobroId)], { SVC_API_KEY: sb.api_key_no_listo });
    expect(r.exitCode).toBe(5);
    const cuenta = await run(['cuenta', '--json'], { SVC_API_KEY: sb.api_key_no_listo });
    expect(JSON.parse(cuenta.stdout).puede_cobrar).toBe(false);
    const plain = await run(['cuenta'], { SVC_API_KEY: sb.api_key_no_listo });
    expect(plain.stderr).toContain('todavía no puede crear cobros');
  });

  it('no address configured: says how to set one, never guesses (exit 2)', async () => {
    const r = await svcSpawned(['cobro', 'listar'], { env: { SVC_API_KEY: sb.api_key } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('svc sandbox');
  });

  it('connection refused gives one line and exit 6', async () => {
    const closed = await closedPort();
    const r = await svcSpawned(['cuenta'], {
      env: {
        SVC_BASE_URL: `http://127.0.0.1:${closed}`,
        SVC_API_KEY: sb.api_key,
        SVC_RETRY_BACKOFF_MS: '1',
      },
    });
    expect(r.exitCode).toBe(6);
    expect(r.stderr.trim().split('\n')[0]).toMatch(/conexión rechazada/);
    expectNoStack(r.stderr);
  });

  it('--debug shows requests with the key redacted', async () => {
    const r = await run(['cuenta', '--debug']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain('--> GET');
    expect(r.stderr).toContain('Bearer [redactado]');
    expect(r.stderr).not.toContain(sb.api_key);
  });
});
