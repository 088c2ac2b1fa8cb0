// One value svc cannot take exactly inside a list (an amount of three decimals, one of
// 30 digits, an id past 2^53 − 1) stops only what depends on it: the row is shown as
// sent and named on stderr, --json keeps its text, and every figure made of it (a total,
// "ya devuelto", `caso`, per-day sums) is refused naming the row (exit 6,
// valor_inexacto), while the other rows and commands keep working.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cobro } from '../../src/api/schemas.js';
import { svcSpawned, tempDir } from '../helpers/cli.js';
import { svc } from '../helpers/inproc.js';
import { startMcpInProcess } from '../helpers/mcp.js';
import { startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';

let sb: InProcessSandbox;
const LISTS = ['cobros', 'transacciones', 'devoluciones', 'liquidaciones'] as const;
const real: Record<string, Record<string, unknown>[]> = {};

beforeAll(async () => {
  sb = await startSandbox();
  for (const [monto, refund] of [
    ['1000.00', '100.00'],
    ['500.00', '50.00'],
  ] as const) {
    const c = (await sb.api('POST', '/v1/cobros', { concepto: `Orden ${monto}`, monto })).body
      .data as Cobro;
    expect((await sb.api('POST', `/_sandbox/cobros/${c.id}/pagar`, { medio: 'qr' })).status).toBe(
      200,
    );
    expect(
      (await sb.api('POST', `/v1/cobros/${c.id}/devoluciones`, { monto: refund })).status,
    ).toBe(201);
  }
  for (const list of LISTS)
    real[list] = (await sb.api('GET', `/v1/${list}`)).body.data as Record<string, unknown>[];
});
afterAll(() => sb?.stop());

const BIG_ID = '9007199254740993';
/** The unusual values: each list gets one more row of request 1 (a request 3 in /v1/cobros) with it. */
const VALUES = {
  'un monto de tres decimales': { amount: '10.001' },
  'un monto de 30 cifras': { amount: '123456789012345678901234567890.00' },
  'un id más allá de 2^53−1': { id: BIG_ID },
} as const;
type Value = (typeof VALUES)[keyof typeof VALUES];

/** The list's JSON text with the unusual row first (newest), its id written as digits. */
function listWith(list: (typeof LISTS)[number], value: Value): string {
  const base = {
    ...(list === 'cobros'
      ? real.cobros!.find((c) => c.id === 2)
      : real[list]!.find((r) => r.cobro_id === 1)),
  };
  const amountField = list === 'liquidaciones' ? 'bruto' : 'monto';
  if ('amount' in value) base[amountField] = value.amount;
  if (list === 'cobros') Object.assign(base, { codigo: 'RAROXXXXXX', referencia: null });
  const row = JSON.stringify({ ...base, id: 0 }).replace(
    '"id":0',
    `"id":${'id' in value ? value.id : 3}`,
  );
  return `{"data":[${[row, ...real[list]!.map((r) => JSON.stringify(r))].join(',')}]}`;
}

async function serving(value: Value): Promise<void> {
  await sb.clearFaults();
  for (const list of LISTS)
    await sb.fault({
      method: 'GET',
      path: `/v1/${list}`,
      action: 'respond',
      status: 200,
      body: listWith(list, value),
      count: 1000,
    });
}

/** The 10 commands of the matrix, and what each does with the unusual row (all of request 1). */
const COMMANDS: [string, 0 | 6][] = [
  ['cobro listar', 0],
  ['transacciones listar', 0],
  ['devoluciones listar', 0],
  ['liquidaciones --cobro 2', 0],
  ['caso 2', 0],
  ['devolver 2 --total --dry-run', 0],
  ['liquidaciones', 6],
  ['caso 1', 6],
  ['devolver 1 --total --dry-run', 6],
  // The verdict is made of every request: one svc cannot take exactly is named, not judged.
  ['webhook conciliar', 6],
];

describe.each(Object.entries(VALUES))('a list with %s', (_name, value) => {
  beforeAll(() => serving(value));
  afterAll(() => sb.clearFaults());

  it.each(COMMANDS)('svc %s: exit %i', async (line, code) => {
    const r = await svc(line.split(' '), { env: sb.env });
    expect(r.exitCode, r.stderr).toBe(code);
    const id = 'id' in value ? value.id : '3';
    if (code === 6) {
      expect(r.stderr).toMatch(
        new RegExp(
          `^error: (la liquidación|la transacción|la devolución|el cobro) ${id} tiene .*es una fila que svc no puede tomar exacta, así que no da `,
          'm',
        ),
      );
      return;
    }
    if (line.endsWith('listar')) {
      // Shown as sent, and named on stderr.
      expect(r.stdout).toMatch(new RegExp(`^${id}\\t`, 'm'));
      if ('amount' in value) expect(r.stdout).toContain(value.amount);
      expect(r.stderr).toMatch(
        new RegExp(
          `^aviso: (el cobro|la transacción|la devolución) ${id} tiene .*: se muestra como llegó y no entra en ningún total$`,
          'm',
        ),
      );
    }
  });
});

describe('what is kept and what is refused', () => {
  beforeAll(() => serving(VALUES['un id más allá de 2^53−1']));
  afterAll(() => sb.clearFaults());

  it('--json keeps the row as sent: the id JSON.parse cannot hold comes out digit for digit', async () => {
    const r = await svc(['devoluciones', 'listar', '--json'], { env: sb.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain(`"id": ${BIG_ID},`);
    expect(r.stdout).not.toContain('9007199254740992');
    // The same layout as every other row.
    expect(r.stdout.split('\n').slice(0, 3)).toEqual(['[', '  {', `    "id": ${BIG_ID},`]);
  });

  it('the built svc: the row shown, named on stderr, and the others listed (exit 0)', async () => {
    const r = await svcSpawned(['devoluciones', 'listar'], { env: sb.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.split('\n').filter(Boolean)).toHaveLength(3);
    expect(r.stdout).toMatch(new RegExp(`^${BIG_ID}\t1\t`, 'm'));
    expect(r.stderr).toBe(
      `aviso: la devolución ${BIG_ID} tiene id más allá de 2^53−1: se muestra como llegó y no entra en ningún total\n`,
    );
  });

  it('a refused figure is exit 6 with the JSON error valor_inexacto naming the row', async () => {
    const r = await svc(['liquidaciones', '--json', '--por-fecha'], { env: sb.env });
    expect(r.exitCode).toBe(6);
    expect(r.stdout).toBe('');
    const err = JSON.parse(r.stderr) as { error: string; problem: string; message: string };
    expect(err.error).toBe('valor_inexacto');
    expect(err.problem).toBe(`la liquidación ${BIG_ID}: id más allá de 2^53−1`);
    expect(err.message).toContain(`la liquidación ${BIG_ID} tiene id más allá de 2^53−1`);
  });

  it('the rows before the refused total are shown: the list, then the error', async () => {
    const r = await svc(['liquidaciones'], { env: sb.env });
    expect(r.exitCode).toBe(6);
    expect(r.stdout.split('\n').filter(Boolean)).toHaveLength(3);
    expect(r.stdout).toMatch(new RegExp(`^${BIG_ID}\\t`, 'm'));
  });
});

describe('a single record fetched by id with such a value stays refused', () => {
  it('svc cobro ver: exit 6, the reply is not the service JSON', async () => {
    const c = real.cobros!.find((x) => x.id === 1)!;
    await sb.fault({
      method: 'GET',
      path: '/v1/cobros/1',
      action: 'respond',
      status: 200,
      body: { data: { ...c, monto: '10.001' } },
      count: 3,
    });
    const r = await svc(['cobro', 'ver', '1'], { env: { ...sb.env, SVC_RETRY_BACKOFF_MS: '1' } });
    await sb.clearFaults();
    expect(r.exitCode).toBe(6);
    expect(r.stderr).toContain('monto');
  });
});

describe('a batch refund: only the rows of the request with such a row stop', () => {
  const refunds = async (cobro: number) =>
    ((await sb.api('GET', '/v1/devoluciones')).body.data as { cobro_id: number }[]).filter(
      (d) => d.cobro_id === cobro,
    ).length;
  const csv = () => {
    const dir = tempDir('svc-lote-');
    writeFileSync(join(dir, 'lote.csv'), 'cobro,monto\n1,1.00\n2,1.00\n');
    return { csv: join(dir, 'lote.csv'), plan: join(dir, 'lote.json') };
  };

  it('the plan leaves out the row of request 1, named, and plans the row of request 2', async () => {
    await serving(VALUES['un monto de tres decimales']);
    const f = csv();
    const r = await svc(['devolver', '--lote', f.csv, '--plan', f.plan], { env: sb.env });
    await sb.clearFaults();
    expect(r.stderr).toMatch(
      /^línea 2\tqueda afuera: la devolución 3 tiene monto 10\.001 con más de dos decimales: es una fila que svc no puede tomar exacta, así que no da un plan para el cobro 1/m,
    );
    expect(r.stderr).toMatch(/^línea 3\tcobro 2\t1\.00\tentra$/m);
  });

  it('applying a plan made before: the row of request 1 is not sent (dudosa), the other is', async () => {
    const f = csv();
    const made = await svc(['devolver', '--lote', f.csv, '--plan', f.plan], { env: sb.env });
    expect(made.exitCode, made.stderr).toBe(0);
    const before = [await refunds(1), await refunds(2)];
    await serving(VALUES['un id más allá de 2^53−1']);
    const r = await svc(['devolver', '--aplicar', f.plan, '--yes', '--json'], { env: sb.env });
    await sb.clearFaults();
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(
      `línea 2: la devolución ${BIG_ID} (del cobro 1) tiene id más allá de 2^53−1: svc no puede saber si es la de esta fila y no envía otra`,
    );
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).estado),
    ).toEqual(['dudosa', 'hecha']);
    expect([await refunds(1), await refunds(2)]).toEqual([before[0], before[1]! + 1]);
  });
});

describe('svc mcp: the row as sent, and no total made of it', () => {
  it.each([
    [
      'un id más allá de 2^53−1',
      'listar_devoluciones',
      BIG_ID,
      `devolución ${BIG_ID} tiene id más allá de 2^53−1`,
    ],
    [
      'un monto de tres decimales',
      'listar_liquidaciones',
      3,
      'liquidación 3 tiene bruto 10.001 que svc no puede tomar exacto',
    ],
  ] as const)('%s: %s', async (name, tool, id, why) => {
    await serving(VALUES[name]);
    const mcp = await startMcpInProcess([], sb.env);
    try {
      const r = await mcp.client.callTool({ name: tool, arguments: {} });
      const out = r.structuredContent as Record<string, unknown>;
      expect(r.isError, JSON.stringify(out)).toBeFalsy();
      expect((out.items as { id: unknown }[])[0]!.id).toBe(id);
      expect(out.totales).toBeUndefined();
      expect(out.sin_totales).toContain(why);
    } finally {
      await mcp.close();
      await sb.clearFaults();
    }
  });
});
