// The list commands' shared habits: --limit (newest first) on every list, --cobro
// <id|código> on transacciones, devoluciones and liquidaciones (filtered by svc), -q for
// --q; and the answers a person gets to a mistyped flag or a flag for a secret.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svcSpawned } from '../helpers/cli.js';
import { svc, svcOnTerminal } from '../helpers/inproc.js';
import { startSandbox, type Sandbox } from '../helpers/sandbox.js';

describe('--limit and --cobro on every list', () => {
  let sb: Sandbox;
  const ids: number[] = [];
  const codes: string[] = [];
  const run = (args: string[]) => svc([...args, '--json'], { env: sb.env });
  const json = async (args: string[]) => {
    const r = await run(args);
    expect(r.exitCode, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as { id: number; cobro_id: number }[];
  };

  beforeAll(async () => {
    sb = await startSandbox();
    for (const monto of ['100.00', '200.00', '300.00']) {
      const c = (await sb.api('POST', '/v1/cobros', { concepto: `Lista ${monto}`, monto })).body
        .data;
      ids.push(c.id);
      codes.push(c.codigo);
      expect(
        (await sb.api('POST', `/_sandbox/cobros/${c.id}/pagar`, { monto: '50.00' })).status,
      ).toBe(200);
      expect((await sb.api('POST', `/_sandbox/cobros/${c.id}/pagar`, {})).status).toBe(200);
      expect(
        (await sb.api('POST', `/v1/cobros/${c.id}/devoluciones`, { monto: '10.00' })).status,
      ).toBe(201);
    }
  });
  afterAll(() => sb.stop());

  for (const list of [['transacciones', 'listar'], ['devoluciones', 'listar'], ['liquidaciones']]) {
    it(`${list.join(' ')}: --cobro by id or by code in any case keeps only that request's; --limit the newest n`, async () => {
      const all = await json(list);
      expect(new Set(all.map((x) => x.cobro_id))).toEqual(new Set(ids));
      const byId = await json([...list, '--cobro', String(ids[1])]);
      expect(byId.length).toBeGreaterThan(0);
      expect(byId.every((x) => x.cobro_id === ids[1])).toBe(true);
      expect(byId).toEqual(all.filter((x) => x.cobro_id === ids[1]));
      expect(await json([...list, '--cobro', codes[1]!.toLowerCase()])).toEqual(byId);
      expect(await json([...list, '--limit', '2'])).toEqual(all.slice(0, 2));
      expect(await json([...list, '--cobro', String(ids[2]), '--limit', '1'])).toEqual(
        all.filter((x) => x.cobro_id === ids[2]).slice(0, 1),
      );
    });
  }

  it('liquidaciones --cobro: the totals are of that request only', async () => {
    const r = await svc(['liquidaciones', '--cobro', String(ids[0])], { env: sb.env });
    expect(r.exitCode, r.stderr).toBe(0);
    // 50.00 and 50.00 paid of a 100.00 request: bruto 100.00.
    expect(r.stderr).toContain('bruto 100.00');
  });

  it('a --cobro that does not exist or is not an id or code is one line with its exit code', async () => {
    const missing = await svc(['devoluciones', 'listar', '--cobro', 'ZZZZZZZZZZ'], { env: sb.env });
    expect(missing.exitCode).toBe(5);
    expect(missing.stderr).toMatch(/^error: no hay ningún cobro con el código ZZZZZZZZZZ/);
    // Under --json it is named as the service names a 404.
    const missingJson = await svc(['devoluciones', 'listar', '--cobro', 'ZZZZZZZZZZ', '--json'], {
      env: sb.env,
    });
    expect(missingJson.exitCode).toBe(5);
    expect(JSON.parse(missingJson.stderr)).toMatchObject({ error: 'not_found' });
    // An id that does not exist is not "no refunds": exit 5 from every list that takes --cobro.
    for (const list of [
      ['devoluciones', 'listar'],
      ['transacciones', 'listar'],
      ['liquidaciones'],
    ]) {
      const r = await svc([...list, '--cobro', '999999'], { env: sb.env });
      expect(r.exitCode, `${list.join(' ')}: ${r.stderr}`).toBe(5);
      expect(r.stderr).toMatch(/^error: not_found \(HTTP 404\)/);
      expect(r.stdout).toBe('');
    }
    const bad = await svc(['transacciones', 'listar', '--cobro', 'el de ayer'], { env: sb.env });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/no es un id \(entero positivo\) ni un código de cobro/);
    const zero = await svc(['liquidaciones', '--limit', '0'], { env: sb.env });
    expect(zero.exitCode).toBe(2);
  });

  it('an empty list on a terminal says whether filters emptied it or nothing is there yet', async () => {
    const none = { ...sb.env, SVC_API_KEY: sb.api_key_no_listo };
    for (const [args, words] of [
      [['cobro', 'listar'], 'no hay cobros todavía: `svc cobro crear` crea uno'],
      [
        ['transacciones', 'listar'],
        'no hay transacciones todavía: aparecen cuando alguien paga un cobro',
      ],
      [['cobro', 'listar', '--estado', 'PAGADA'], 'no hay cobros con esos filtros'],
      [['transacciones', 'listar', '--medio', 'qr'], 'no hay transacciones con esos filtros'],
    ] as const) {
      const r = await svcOnTerminal([...args], none, 80);
      expect(r.exitCode, r.screen).toBe(0);
      expect(r.screen.trim()).toBe(words);
    }
  });

  it('-q is --q', async () => {
    expect((await json(['cobro', 'listar', '-q', 'Lista 200'])).map((c) => c.id)).toEqual([ids[1]]);
  });
});

describe('answers to a mistyped flag', () => {
  it.each([
    [
      '--api-key',
      /^error: --api-key no existe: la clave nunca va en la línea de comandos; usá SVC_API_KEY o `svc login`/,
    ],
    ['--key=svc_test_abc', /^error: --key no existe: la clave nunca va en la línea de comandos/],
    [
      '--secret',
      /^error: --secret no existe: el secreto de firma nunca va en la línea de comandos; usá SVC_WEBHOOK_SECRET/,
    ],
    ['--webhook-secret', /^error: --webhook-secret no existe: el secreto de firma/],
  ])('%s says where secrets come from, never echoing a value', async (flag, message) => {
    const r = await svc(['cobro', 'listar', flag, 'svc_test_valor_secreto']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toContain('svc_test_abc');
    expect(r.stderr).not.toContain('valor_secreto');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('a near-miss of a flag is one line with the suggestion', async () => {
    const r = await svc(['cobro', 'listar', '--estdo', 'PAGADA']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe("error: opción desconocida '--estdo' (¿quisiste decir --estado?)\n");
  });
});

describe('cobro ver --mostrar-qr', () => {
  it('draws the QR of the request and changes nothing', async () => {
    const sb = await startSandbox();
    try {
      const c = (await sb.api('POST', '/v1/cobros', { concepto: 'QR', monto: '10.00' })).body.data;
      const before = (await sb.api('GET', `/v1/cobros/${c.id}`)).body.data;
      const r = await svcSpawned(['cobro', 'ver', c.codigo, '--mostrar-qr'], { env: sb.env });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^url\thttp/);
      // Piped, the QR goes to stderr so stdout stays the record.
      expect(r.stderr).toContain(`QR del cobro ${c.codigo}`);
      expect(r.stderr).toMatch(/[█▀▄]/);
      const after = (await sb.api('GET', `/v1/cobros/${c.id}`)).body.data;
      expect(after).toEqual(before);
      const log = (await sb.api('GET', '/_sandbox/log')).body.data as {
        method: string;
        path: string;
      }[];
      expect(log.filter((l) => l.method !== 'GET' && l.path.startsWith('/v1/'))).toHaveLength(1);
    } finally {
      await sb.stop();
    }
  });
});
