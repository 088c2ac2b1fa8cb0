// A long list is written as its items are turned to text, never as one string (a
// million requests would be past what V8 can hold in one): chunked, no Content-Length,
// and byte for byte the JSON of the whole list, paged or not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STREAMED_LIST_ITEMS } from '../../src/sandbox/app.js';
import type { Op } from '../../src/sandbox/store.js';
import { startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';

const N = STREAMED_LIST_ITEMS + 5;
let sb: InProcessSandbox;

beforeAll(async () => {
  // Whole lists (pageSize 0): what is tested is one reply longer than STREAMED_LIST_ITEMS.
  sb = await startSandbox({ pageSize: 0 });
  // One request made through the API, the rest its copies put in the store directly
  // (the list is what is tested, not a thousand creations).
  const first = await sb.cobro({ concepto: 'Pedido "0" ñandú \\ x', monto: '1.00' });
  const { store } = sb.app.deps;
  const rec = store.cobros.byId.get(first.id)!;
  const copies: Op[] = [];
  for (let i = 1; i < N; i++) {
    const id = first.id + i;
    const codigo = store.newCodigo();
    copies.push([
      'cobro',
      { ...rec, wire: { ...rec.wire, id, codigo, concepto: `Pedido "${i}" ñandú \\ x` } },
    ]);
  }
  store.commit(copies);
});
afterAll(() => sb?.stop());

describe('a list longer than STREAMED_LIST_ITEMS', () => {
  it('is sent chunked, and is the same JSON as the whole list', async () => {
    const r = await sb.api('GET', '/v1/cobros');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-length')).toBeNull();
    expect(r.headers.get('transfer-encoding')).toBe('chunked');
    const items = r.body.data as { id: number; concepto: string }[];
    expect(items).toHaveLength(N);
    expect(items.map((c) => c.id)).toEqual(Array.from({ length: N }, (_, i) => N - i));
    expect(r.text).toBe(JSON.stringify({ data: items }));
  });

  it('svc cobro listar --json reads it whole', async () => {
    const { svc } = await import('../helpers/inproc.js');
    const out = await svc(['cobro', 'listar', '--json'], { env: sb.env });
    expect(out.exitCode, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout)).toHaveLength(N);
  });
});
