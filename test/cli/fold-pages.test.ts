// Totals read over pages keep --limit rows in all, not --limit a page: foldList gives
// each page's fold its page number (the client's ListRead.fold), and a page keeps rows
// only while the pages before it have not kept --limit of them (each kept row holds its
// text, so --limit a page held a year's pages). A page read again after a cut reply
// counts again from nothing. Against a service of the test's own that pages its
// settlements and cuts one page's first reply after its items.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../../src/api/client.js';
import { foldList } from '../../src/cli/shared/lists.js';
import { closeServer, onLoopback } from '../helpers/loopback.js';
import { settlement, type Settlement } from '../helpers/settlements.js';

const PAGES = 6;
const PER_PAGE = 5;
let server: Server;
let url: string;
/** Page numbers to cut mid-body on their first reply (then read again). */
const cutOnce = new Set<number>();
const asked: number[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const page = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('pagina') ?? '1');
    asked.push(page);
    const data = Array.from({ length: PER_PAGE }, (_, k) =>
      settlement((page - 1) * PER_PAGE + k + 1),
    );
    const next = page < PAGES ? `/v1/liquidaciones?pagina=${page + 1}` : null;
    const body = JSON.stringify({ data, has_more: next !== null, next });
    res.writeHead(200, { 'content-type': 'application/json' });
    if (cutOnce.delete(page)) {
      // Every item of the page sent (and folded), then the connection cut before its end.
      // (Cut once the client has them: a reset at once could drop what it had not read.)
      res.write(body.slice(0, body.indexOf('],"has_more"')), () =>
        setTimeout(() => res.destroy(), 50),
      );
      return;
    }
    res.end(body);
  });
  url = await onLoopback(server);
});
afterAll(() => closeServer(server));

class Count {
  count = 0;
  merge(other: Count) {
    this.count += other.count;
  }
}

async function read(limit: number | undefined) {
  const client = new Client({ baseUrl: url, apiKey: 'svc_test_abcdefgh12345678' });
  let held = -1;
  const pages: number[] = [];
  const out = await foldList<Settlement, Count>(
    async (r) => {
      const res = await client.iterarLiquidaciones({
        ...r,
        fold: (page) => {
          pages.push(page);
          return r.fold!(page);
        },
      });
      held = res.data.length;
      return res;
    },
    { limit },
    (l) => l.fecha_estimada,
    { tally: () => new Count(), add: (t) => t.count++, showRows: true },
  );
  return { ...out, held, pages };
}

describe('foldList over pages', () => {
  it('--limit 2: two rows held in all, every settlement counted', async () => {
    const r = await read(2);
    expect(r.pages).toEqual([1, 2, 3, 4, 5, 6]);
    expect(r.held).toBe(2);
    expect(r.rows.map((l) => l.id)).toEqual([1, 2]);
    expect(r.tally.count).toBe(PAGES * PER_PAGE);
    expect(r.count).toBe(PAGES * PER_PAGE);
  });

  it('--limit 7 spans two pages; a page cut and read again counts its rows again', async () => {
    cutOnce.add(2);
    asked.length = 0;
    const r = await read(7);
    expect(asked.filter((p) => p === 2)).toHaveLength(2);
    expect(r.pages.filter((p) => p === 2)).toHaveLength(2);
    expect(r.held).toBe(7);
    expect(r.rows.map((l) => l.id)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(r.tally.count).toBe(PAGES * PER_PAGE);
  });

  it('--limit 12 spills into the page after one cut and read again: its first reading counts for nothing', async () => {
    cutOnce.add(2);
    const r = await read(12);
    expect(r.pages.filter((p) => p === 2)).toHaveLength(2);
    expect(r.held).toBe(12);
    expect(r.rows.map((l) => l.id)).toEqual(Array.from({ length: 12 }, (_, k) => k + 1));
  });

  it('no --limit: every row', async () => {
    const r = await read(undefined);
    expect(r.held).toBe(PAGES * PER_PAGE);
    expect(r.rows).toHaveLength(PAGES * PER_PAGE);
  });
});
