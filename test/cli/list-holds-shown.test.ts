// A list shown with --desde, --hasta or --cobro holds only the items those filters keep
// (readShown's `keep`), so one month of a year's requests costs that month in memory:
// an item outside them is let go as it arrives, unchecked, and an item the filters
// cannot judge (a date or a request id of another type) is held, so the list's check
// refuses it instead of the filters dropping it unseen. Against a service of the
// test's own, whose lists carry one broken item outside the days asked for. A whole
// list shown whole is printed from the list itself, its items parsed one at a time.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ItemList } from '../../src/api/list.js';
import { firstRows, readShown } from '../../src/cli/shared/lists.js';
import { svc } from '../helpers/inproc.js';
import { closeServer, onLoopback } from '../helpers/loopback.js';
import { startSandbox } from '../helpers/sandbox.js';

let server: Server;
let url: string;
/** The data each path answers (a list, or one item), set by each test. */
const lists = new Map<string, unknown>();
let cobro: Record<string, unknown>;
let transaccion: Record<string, unknown>;

beforeAll(async () => {
  // Items of the shapes the service sends, taken from a sandbox.
  const sb = await startSandbox();
  try {
    const c = (await sb.api('POST', '/v1/cobros', { concepto: 'Forma', monto: '10.00' })).body
      .data as { id: number };
    await sb.api('POST', `/_sandbox/cobros/${c.id}/pagar`, {});
    cobro = (await sb.api('GET', `/v1/cobros/${c.id}`)).body.data as Record<string, unknown>;
    const txs = (await sb.api('GET', '/v1/transacciones?por_pagina=0')).body.data as Record<
      string,
      unknown
    >[];
    transaccion = txs[0]!;
  } finally {
    await sb.stop();
  }
  server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0]!;
    const data = lists.get(path);
    res.writeHead(data ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(data ? { data } : { error: 'not_found', message: 'no existe' }));
  });
  url = await onLoopback(server);
});
afterAll(() => closeServer(server));

const env = () => ({
  SVC_BASE_URL: url,
  SVC_API_KEY: 'svc_test_0123456789abcdef0123456789abcdef',
  SVC_TZ: 'UTC',
});
const cobroOn = (id: number, created_at: unknown, extra: Record<string, unknown> = {}) => ({
  ...cobro,
  id,
  created_at,
  ...extra,
});

describe('a list shown with filters holds only what they keep', () => {
  it('cobro listar --desde: a broken request of an earlier day is let go unchecked; the month is shown', async () => {
    lists.set('/v1/cobros', [
      cobroOn(3, '2026-11-20 10:00:00'),
      cobroOn(2, '2026-10-02 10:00:00', { monto: 12 }),
      cobroOn(1, '2026-10-01 10:00:00'),
    ]);
    const r = await svc(['cobro', 'listar', '--desde', '2026-11-01', '--json'], { env: env() });
    expect(r.exitCode, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { id: number }[]).map((c) => c.id)).toEqual([3]);
    // The whole list, unfiltered, holds it: refused.
    const whole = await svc(['cobro', 'listar', '--json'], { env: env() });
    expect(whole.exitCode).not.toBe(0);
    expect(whole.stderr).toContain('monto');
  });

  it('cobro listar --desde: a request whose date is not text is held and refused', async () => {
    lists.set('/v1/cobros', [cobroOn(3, '2026-11-20 10:00:00'), cobroOn(2, 1)]);
    const r = await svc(['cobro', 'listar', '--desde', '2026-11-01', '--json'], { env: env() });
    expect(r.exitCode).not.toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('created_at');
  });

  it('transacciones listar --cobro: a transaction whose request id is not a number is held and refused', async () => {
    // `--cobro N` reads the request first.
    lists.set(`/v1/cobros/${String(cobro.id)}`, cobro);
    lists.set('/v1/transacciones', [transaccion, { ...transaccion, id: 999, cobro_id: '7' }]);
    const r = await svc(['transacciones', 'listar', '--cobro', String(cobro.id), '--json'], {
      env: env(),
    });
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toContain('cobro_id');
  });
});

describe('readShown', () => {
  const dateOf = (x: { created_at: string }) => x.created_at;
  it('keeps what the filters keep and what they cannot judge; nothing to keep without filters', () => {
    expect(readShown({}, dateOf)).toEqual({});
    const { keep } = readShown({ desde: '2026-11-01', timeZone: 'UTC' }, dateOf);
    expect(keep?.({ created_at: '2026-11-01 00:00:00' })).toBe(true);
    expect(keep?.({ created_at: '2026-10-31 23:59:59' })).toBe(false);
    expect(keep?.({ created_at: 5 })).toBe(true);
    expect(keep?.({})).toBe(true);
    expect(keep?.(null)).toBe(true);
    expect(keep?.('x')).toBe(true);
    const byCobro = readShown({ cobroId: 7 }, dateOf).keep;
    expect(byCobro?.({ cobro_id: 7, created_at: 'x' })).toBe(true);
    expect(byCobro?.({ cobro_id: 8, created_at: 'x' })).toBe(false);
    expect(byCobro?.({ cobro_id: '7' })).toBe(true);
    const also = readShown({}, dateOf, (x: { created_at: string }) => x.created_at === 'a').keep;
    expect(also?.({ created_at: 'a' })).toBe(true);
    expect(also?.({ created_at: 'b' })).toBe(false);
  });

  it('with --limit, stops at the n-th item kept, counting none it cannot read', () => {
    const { until } = readShown({ limit: 2, hasta: '2026-11-30', timeZone: 'UTC' }, dateOf);
    expect(until?.({ created_at: '2026-12-01 10:00:00' })).toBe(false);
    expect(until?.(null)).toBe(false);
    expect(until?.({ created_at: '2026-11-01 10:00:00' })).toBe(false);
    expect(until?.({ created_at: '2026-11-02 10:00:00' })).toBe(true);
  });
});

describe('firstRows', () => {
  const dateOf = (x: { created_at: string }) => x.created_at;
  it('gives a whole list shown whole as it is (its items parsed as they are printed); a filtered one as the rows kept', () => {
    const text = '[{"created_at":"2026-11-01 10:00:00"},{"created_at":"2026-10-01 10:00:00"}]';
    const list = new ItemList<{ created_at: string }>(text, [1, 37, 38, 74], {});
    expect([...list].map(dateOf)).toEqual(['2026-11-01 10:00:00', '2026-10-01 10:00:00']);
    const whole = firstRows(list, {}, dateOf);
    expect(whole.rows).toBe(list);
    expect(whole.count).toBe(2);
    for (const filter of [{ limit: 5 }, { desde: '2026-11-01' }, { cobroId: 1 }]) {
      const some = firstRows(list, filter, dateOf);
      expect(Array.isArray(some.rows)).toBe(true);
    }
    expect([...firstRows(list, { desde: '2026-11-01' }, dateOf).rows]).toEqual([list.at(0)]);
  });
});
