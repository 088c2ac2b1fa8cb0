// Support lookups that forgive (in-process against a sandbox): a code read out in
// groups and in any case is found; a reference with no exact match but near ones lists
// them (id, codigo, referencia, estado, monto) and exits 2 (`near_matches`);
// `transacciones listar` and `devoluciones listar` take --referencia; `svc caso` takes a
// reference as its argument; `webhook replay --last 3` means three events, not three
// deliveries of one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastEvents } from '../../src/cli/commands/webhook/replay.js';
import { svc } from '../helpers/inproc.js';
import { journalEntryAs } from '../helpers/journal.js';
import { startSandbox, type Sandbox } from '../helpers/sandbox.js';

let sb: Sandbox;
let cobro: { id: number; codigo: string };
beforeAll(async () => {
  sb = await startSandbox();
  cobro = (
    await sb.api('POST', '/v1/cobros', {
      concepto: 'Zapatillas',
      monto: '1500.00',
      referencia: 'pedido-1042',
    })
  ).body.data;
  await sb.api('POST', '/v1/cobros', {
    concepto: 'Medias',
    monto: '300.00',
    referencia: 'pedido-1043',
  });
  expect((await sb.api('POST', `/_sandbox/cobros/${cobro.id}/pagar`, {})).status).toBe(200);
  expect(
    (await sb.api('POST', `/v1/cobros/${cobro.id}/devoluciones`, { monto: '100.00' })).status,
  ).toBe(201);
});
afterAll(() => sb.stop());

describe('lookups that forgive', () => {
  it('a code read out in groups, with blanks or dashes, in any case, is found', async () => {
    const c = cobro.codigo;
    for (const typed of [
      `${c.slice(0, 4)} ${c.slice(4, 8)} ${c.slice(8)}`,
      `${c.slice(0, 4)}-${c.slice(4, 8)}-${c.slice(8)}`.toLowerCase(),
      c.toLowerCase(),
    ]) {
      const r = await svc(['cobro', 'ver', typed, '--json'], { env: sb.env });
      expect(r.exitCode, `${typed}: ${r.stderr}`).toBe(0);
      expect(JSON.parse(r.stdout).id).toBe(cobro.id);
    }
  });

  it('--referencia with no exact match but near ones lists them and exits 2; --json names the error near_matches', async () => {
    for (const typed of ['Pedido 1042', 'PEDIDO_1042', 'pedido-104']) {
      const r = await svc(['cobro', 'ver', '--referencia', typed], { env: sb.env });
      expect(r.exitCode, `${typed}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(
        new RegExp(
          `^${cobro.id}\\t${cobro.codigo}\\tpedido-1042\\tDEVUELTA_PARCIALMENTE\\t1500\\.00$`,
          'm',
        ),
      );
      expect(r.stderr).toMatch(/^error: ningún cobro tiene exactamente la referencia/m);
    }
    const json = await svc(['cobro', 'ver', '--referencia', 'Pedido 1042', '--json'], {
      env: sb.env,
    });
    expect(json.exitCode).toBe(2);
    expect(JSON.parse(json.stderr).error).toBe('near_matches');
    // Nothing like it: not found, as before.
    const none = await svc(['cobro', 'ver', '--referencia', 'factura-77'], { env: sb.env });
    expect(none.exitCode).toBe(5);
  });

  it('transacciones listar and devoluciones listar take --referencia', async () => {
    for (const [noun, n] of [
      ['transacciones', 1],
      ['devoluciones', 1],
    ] as const) {
      const r = await svc([noun, 'listar', '--referencia', 'pedido-1042', '--json'], {
        env: sb.env,
      });
      expect(r.exitCode, r.stderr).toBe(0);
      const items = JSON.parse(r.stdout) as { cobro_id: number }[];
      expect(items).toHaveLength(n);
      expect(items.every((x) => x.cobro_id === cobro.id)).toBe(true);
      const near = await svc([noun, 'listar', '--referencia', 'pedido 104'], { env: sb.env });
      expect(near.exitCode).toBe(2);
    }
  });

  it('svc caso takes a reference as its argument, also one that reads as a code once its dash is gone', async () => {
    for (const typed of ['pedido-1042', cobro.codigo]) {
      const r = await svc(['caso', typed, '--json'], { env: sb.env });
      expect(r.exitCode, `${typed}: ${r.stderr}`).toBe(0);
      expect(JSON.parse(r.stdout).cobro.id).toBe(cobro.id);
    }
    const ambiguous = await svc(['caso', 'pedido-104'], { env: sb.env });
    expect(ambiguous.exitCode).toBe(2);
    expect(ambiguous.stderr).toContain('pedido-1043');
  });

  it('webhook replay --last 3: the last three events, a repeated delivery counted once (its latest)', () => {
    const body = (n: number) =>
      JSON.stringify({ event: 'payment.approved', cobro_id: n, estado: 'PAGADA', monto: '1.00' });
    const at = (id: string, n: number) => ({
      ...journalEntryAs(id, { cobro_id: n }),
      body: body(n),
      body_encoding: 'utf8' as const,
    });
    const entries = [
      at('evt_a', 1),
      at('evt_b', 2),
      at('evt_c', 3),
      at('evt_d', 4),
      at('evt_d2', 4),
      at('evt_d3', 4),
    ];
    // Read newest first, as the journal is.
    expect(lastEvents([...entries].reverse(), 3).map((e) => e.id)).toEqual([
      'evt_b',
      'evt_c',
      'evt_d3',
    ]);
  });
});
