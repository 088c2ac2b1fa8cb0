// Every paged list of the sandbox starts its next page after the last id shown (`tras`
// in `next`): a record made while a client pages never pushes one it read onto the next
// page, filtered or not. (svc reading those pages: test/cli/paged-lists.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';

let sb: InProcessSandbox;

/** A request of `monto`, paid by QR: a request, a transaction and a settlement. */
async function paid(monto: string): Promise<number> {
  const c = await sb.cobro({ concepto: `Orden ${monto}`, monto });
  const r = await sb.api('POST', `/_sandbox/cobros/${c.id}/pagar`, { medio: 'qr' });
  expect(r.status, r.text).toBe(200);
  return c.id;
}

/** A refund of 1.00 of request `id`. */
async function refund(id: number): Promise<void> {
  const r = await sb.api('POST', `/v1/cobros/${id}/devoluciones`, { monto: '1.00' });
  expect(r.status, r.text).toBe(201);
}

let ids: number[] = [];

beforeAll(async () => {
  // Two items a page: five of each list make three pages.
  sb = await startSandbox({ pageSize: 2 });
  for (const monto of ['100.00', '200.00', '300.00', '400.00', '500.00'])
    ids.push(await paid(monto));
  for (const id of ids) await refund(id);
});
afterAll(() => sb?.stop());

describe('a record made between two pages is not on the next one', () => {
  // Each list (filtered as a client may ask for it), and how to make one more of its items.
  const LISTS: [string, () => Promise<unknown>][] = [
    ['/v1/cobros', () => paid('600.00')],
    // Every request made in beforeAll is refunded in part.
    ['/v1/cobros?estado=DEVUELTA_PARCIALMENTE', async () => refund(await paid('600.00'))],
    ['/v1/cobros?q=Orden', () => paid('600.00')],
    ['/v1/transacciones', () => paid('600.00')],
    ['/v1/transacciones?medio=qr', () => paid('600.00')],
    ['/v1/transacciones?estado=ACREDITADO', () => paid('600.00')],
    ['/v1/devoluciones', () => refund(ids[0]!)],
    ['/v1/liquidaciones', () => paid('600.00')],
  ];
  for (const [path, more] of LISTS) {
    it(path, async () => {
      const before = (await sb.list(path)).map((x: { id: number }) => x.id);
      expect(before.length).toBeGreaterThan(2);
      const one = await sb.api('GET', path);
      expect(one.body.data.map((x: { id: number }) => x.id)).toEqual(before.slice(0, 2));
      await more();
      // The list has one more, at its start (newest first)…
      const after = (await sb.list(path)).map((x: { id: number }) => x.id);
      expect(after.slice(1)).toEqual(before);
      // …and the client's next page goes on where its first one stopped.
      const next = new URL(one.body.next as string);
      expect(next.searchParams.get('tras')).toBe(String(before[1]));
      const rest = (await sb.list(next.pathname + next.search)).map((x: { id: number }) => x.id);
      expect(rest).toEqual(before.slice(2));
    });
  }
});
