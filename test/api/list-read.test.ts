// A list read for a few of its items keeps only those: `keep` is offered each item as
// it arrives and the text of the others is let go (how `caso` reads a year of
// transactions, refunds and settlements for one request). `until` stops the reading.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { Client } from '../../src/api/client.js';
import { ListStream, SEGMENT_CHARS } from '../../src/api/list.js';
import { settlement } from '../helpers/settlements.js';

const N = 20_000;
const liq = (i: number) => settlement(N - i, i % 100);
const body = JSON.stringify({ data: Array.from({ length: N }, (_, i) => liq(i)) });

let server: Server;
let url: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    if (req.url?.includes('lento')) {
      // 12 settlements, one every 150 ms: 1.8 s in all, never 1 s without a byte.
      let i = 0;
      res.write('{"data":[');
      const timer = setInterval(() => {
        res.write(`${i ? ',' : ''}${JSON.stringify(liq(i))}`);
        if (++i === 12) (clearInterval(timer), res.end(']}'));
      }, 150);
      return;
    }
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((r) => server?.close(r)));

describe('a list read for some of its items', () => {
  it('keeps only the items `keep` takes, in their order, each checked', async () => {
    expect(body.length).toBeGreaterThan(2 * SEGMENT_CHARS);
    const client = new Client({ baseUrl: url, apiKey: 'svc_test_abcdefgh12345678' });
    const { data } = await client.iterarLiquidaciones({
      keep: (x) => (x as { cobro_id?: unknown }).cobro_id === 7,
    });
    const ids = [...data].map((l) => l.id);
    expect(ids).toEqual(Array.from({ length: N / 100 }, (_, k) => N - (7 + 100 * k)));
    expect([...data].every((l) => l.cobro_id === 7)).toBe(true);
    expect(data.cut).toBe(false);
  });

  it('a list that keeps arriving is read past the timeout, which is for each piece', async () => {
    const client = new Client({
      baseUrl: url,
      apiKey: 'svc_test_abcdefgh12345678',
      timeoutMs: 1000,
      getAttempts: 1,
    });
    const { data } = await client.callList('/lento', z.unknown());
    expect(data.length).toBe(12);
  });

  it('ListStream lets go of the text of items it does not keep', () => {
    const stream = new ListStream(Infinity, {
      keep: (x) => (x as { cobro_id: number }).cobro_id === 3,
    });
    const bytes = Buffer.from(body);
    for (let at = 0; at < bytes.length; at += 64 * 1024)
      stream.push(bytes.subarray(at, at + 64 * 1024));
    const list = stream.result()!;
    expect(list.length).toBe(N / 100);
    // What the service sent is still counted: a total it declares is of these.
    expect(list.seen).toBe(N);
    expect(list.at(0)).toEqual(liq(3));
    // The kept pieces of text hold little more than the kept items.
    const held = (list as unknown as { pages?: { text: string }[] }).pages ?? [list];
    const chars = held.reduce(
      (n, p) => n + ((p as unknown as { text: string }).text?.length ?? 0),
      0,
    );
    expect(chars).toBeLessThan(body.length / 2);
  });
});
