// A service whose list replies say more follows, in ways svc can and cannot follow: svc
// reads every page it is pointed to on the service's own origin, once each, in order; a
// sign it cannot follow (no address, another origin, a page already read, a total above
// what came) gives no figure: exit 6, lista_incompleta, naming the sign and why. A small
// fake service, no sandbox: each case is its pages. (A whole paged sandbox's money
// flows: test/cli/paged-lists.test.ts.)
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../../src/index.js';
import { svc } from '../helpers/inproc.js';
import { settlement } from '../helpers/settlements.js';

// A service of its own for the signs svc cannot follow: one settlement and a body or
// header that says more follows.
type Page = { body: Record<string, unknown>; headers?: Record<string, string> };
let fake: Server;
let fakeUrl: string;
let stranger: Server;
let strangerUrl: string;
let strangerHits = 0;
let page: (req: IncomingMessage) => Page;

const listen = async (handler: (req: IncomingMessage, res: ServerResponse) => void) => {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
};

const LIQ = settlement(1);

beforeAll(async () => {
  ({ server: fake, url: fakeUrl } = await listen((req, res) => {
    const p = page(req);
    res.writeHead(200, { 'content-type': 'application/json', ...p.headers });
    res.end(JSON.stringify(p.body));
  }));
  ({ server: stranger, url: strangerUrl } = await listen((_req, res) => {
    strangerHits++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ data: [] }));
  }));
});
afterAll(async () => {
  await new Promise((r) => fake?.close(r));
  await new Promise((r) => stranger?.close(r));
});

describe('a sign of more that svc cannot follow: no figure, exit 6', () => {
  const CASES: { name: string; page: () => Page; sign: RegExp }[] = [
    {
      name: 'has_more without an address',
      page: () => ({ body: { data: [LIQ], has_more: true } }),
      sign: /^has_more: true$/,
    },
    {
      name: 'a next page on another origin',
      page: () => ({
        body: { data: [LIQ], next: `${strangerUrl}/v1/liquidaciones?page=2` },
        headers: { link: `<${strangerUrl}/v1/liquidaciones?page=2>; rel="next"` },
      }),
      sign: /^Link rel="next"$/,
    },
    {
      name: 'a cursor',
      page: () => ({ body: { data: [LIQ], next_cursor: 'abc' } }),
      sign: /^next_cursor: "abc"$/,
    },
    {
      name: 'a total above the items',
      page: () => ({ body: { data: [LIQ], meta: { total: 3 } } }),
      sign: /^meta\.total: 3$/,
    },
    {
      name: 'a next page that repeats itself',
      page: () => ({ body: { data: [LIQ], next: '/v1/liquidaciones' } }),
      sign: /^next$/,
    },
  ];
  for (const c of CASES) {
    it(`${c.name}: liquidaciones refuses its totals`, async () => {
      page = c.page;
      const env = {
        SVC_BASE_URL: fakeUrl,
        SVC_API_KEY: 'svc_test_0123456789abcdef0123456789abcdef',
      };
      const r = await svc(['liquidaciones'], { env });
      expect(r.exitCode, r.stderr).toBe(6);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^error: GET \/v1\/liquidaciones: la lista está incompleta/);
      expect(r.stderr).not.toMatch(/^total/m);
      const j = await svc(['liquidaciones', '--json'], { env });
      expect(j.exitCode).toBe(6);
      const err = JSON.parse(j.stderr);
      expect(err.error).toBe('lista_incompleta');
      expect(err.problem).toMatch(c.sign);
    });
  }

  it('the other origin is never asked (the key stays with the service)', () => {
    expect(strangerHits).toBe(0);
  });

  it('a page with no sign is the whole list', async () => {
    page = () => ({ body: { data: [LIQ], has_more: false, next: null, total: 1 } });
    const env = { SVC_BASE_URL: fakeUrl, SVC_API_KEY: 'svc_test_0123456789abcdef0123456789abcdef' };
    const r = await svc(['liquidaciones'], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('total\tbruto 100.00\t');
  });
});

describe('what svc says of a list it could not read whole, page by page', () => {
  const env = () => ({
    SVC_BASE_URL: fakeUrl,
    SVC_API_KEY: 'svc_test_0123456789abcdef0123456789abcdef',
  });
  const LIQ2 = settlement(2);
  /** The pages asked for, in order (path and query as svc sent them). */
  let asked: string[] = [];
  /** Serves `pages` by the query's `page` (1 when there is none), recording each request. */
  const serve = (pages: Record<string, Page>) => (req: IncomingMessage) => {
    asked.push(req.url!);
    const n = new URL(req.url!, 'http://x').searchParams.get('page') ?? '1';
    return pages[n] ?? { body: { data: [] } };
  };
  const firstLine = async () => {
    asked = [];
    const r = await svc(['liquidaciones'], { env: env() });
    expect(r.stdout).toBe('');
    return { code: r.exitCode, line: r.stderr.split('\n')[0], hint: r.stderr.split('\n')[1] };
  };
  const incomplete = (sign: string, why: string, items: number) =>
    `error: GET /v1/liquidaciones: la lista está incompleta (${sign}): ${why}; svc no da totales ni montos de una lista incompleta (leídos hasta acá: ${items})`;

  it('more said with no address: why, the items read, and where to see the reply', async () => {
    page = serve({ '1': { body: { data: [LIQ], has_more: true } } });
    expect(await firstLine()).toEqual({
      code: 6,
      line: incomplete(
        'has_more: true',
        'el servicio dice que hay más y no da la dirección de la página siguiente',
        1,
      ),
      hint: '→ `svc api GET /v1/liquidaciones` muestra la respuesta tal como llegó',
    });
  });

  it('a total declared on the first page holds for the pages after it', async () => {
    page = serve({
      '1': { body: { data: [LIQ], total: 3, next: '?page=2' } },
      '2': { body: { data: [LIQ2] } },
    });
    const r = await firstLine();
    expect(r.line).toBe(incomplete('total: 3', 'llegaron 2 elementos', 2));
    expect(asked).toEqual(['/v1/liquidaciones', '/v1/liquidaciones?page=2']);
  });

  it('a declared total counts every item sent, also those svc did not keep', async () => {
    // Totals with --limit keep only the rows shown, and --por-fecha none: the total of
    // 3 is still what the two pages sent, so the list is whole and the figures stand.
    page = serve({
      '1': { body: { data: [LIQ, LIQ2], total: 3, next: '?page=2' } },
      '2': { body: { data: [settlement(3)], total: 3 } },
    });
    for (const argv of [
      ['liquidaciones', '--limit', '1'],
      ['liquidaciones', '--por-fecha'],
    ]) {
      const r = await svc(argv, { env: env() });
      expect(r.exitCode, `${argv.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r.stderr).toContain('te_queda 297.03\t(3 liquidaciones)');
    }
  });

  it('a next page on another origin is named, and never asked', async () => {
    const before = strangerHits;
    page = serve({
      '1': { body: { data: [LIQ], next: `${strangerUrl}/v1/liquidaciones?page=2` } },
    });
    expect((await firstLine()).line).toBe(
      incomplete(
        'next',
        `la página siguiente está en otro origen (${strangerUrl}), adonde svc no manda la clave`,
        1,
      ),
    );
    expect(strangerHits).toBe(before);
  });

  it('a next that is no address, quoted up to 80 characters', async () => {
    page = serve({ '1': { body: { data: [LIQ], next: 'http://[::1' } } });
    expect((await firstLine()).line).toBe(
      incomplete('next', '"http://[::1" no es una dirección', 1),
    );
    const long = `http://[${'x'.repeat(100)}`;
    page = serve({ '1': { body: { data: [LIQ], next: long } } });
    expect((await firstLine()).line).toBe(
      incomplete('next', `"${long.slice(0, 80)}" no es una dirección`, 1),
    );
  });

  it('a page that points to itself: read once, then stopped', async () => {
    page = serve({ '1': { body: { data: [LIQ], next: '/v1/liquidaciones' } } });
    expect((await firstLine()).line).toBe(
      incomplete('next', 'la página siguiente repite una ya leída', 1),
    );
    expect(asked).toEqual(['/v1/liquidaciones']);
  });

  it('a later page that is no list, or holds an item of the wrong shape: no figure', async () => {
    page = serve({
      '1': { body: { data: [LIQ], next: '?page=2' } },
      '2': { body: { data: { id: 2 } } },
    });
    const notList = await firstLine();
    expect(notList.code).toBe(6);
    expect(notList.line).toBe(
      'error: la respuesta de GET /v1/liquidaciones?page=2 (HTTP 200) no tiene la forma esperada del servicio (data: se esperaba una lista)',
    );
    page = serve({
      '1': { body: { data: [LIQ], next: '?page=2' } },
      '2': { body: { data: [{ ...LIQ2, bruto: 'mucho' }] } },
    });
    const badItem = await firstLine();
    expect(badItem.code).toBe(6);
    expect(badItem.line).toMatch(
      /^error: la respuesta de GET \/v1\/liquidaciones\?page=2 \(HTTP 200\) no tiene la forma esperada del servicio \(data\.0\.bruto: /,
    );
  });

  it('pages that point back to one already read: stopped, never counted twice', async () => {
    page = serve({
      '1': { body: { data: [LIQ], next: '/v1/liquidaciones?page=2' } },
      '2': { body: { data: [LIQ2], next: '/v1/liquidaciones?page=3' } },
      '3': { body: { data: [LIQ2], next: '/v1/liquidaciones?page=2' } },
    });
    expect((await firstLine()).line).toBe(
      incomplete('next', 'la página siguiente repite una ya leída', 3),
    );
    expect(asked).toEqual([
      '/v1/liquidaciones',
      '/v1/liquidaciones?page=2',
      '/v1/liquidaciones?page=3',
    ]);
  });

  it('pages on the same origin, relative or absolute, by Link or body: every one read once, in order', async () => {
    page = serve({
      '1': { body: { data: [LIQ] }, headers: { link: '<?page=2>; rel="next"' } },
      '2': { body: { data: [LIQ2], links: { next: `${fakeUrl}/v1/liquidaciones?page=3` } } },
      '3': { body: { data: [{ ...LIQ, id: 3 }], has_more: false } },
    });
    asked = [];
    const r = await svc(['liquidaciones', '--json'], { env: env() });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).map((l: { id: number }) => l.id)).toEqual([1, 2, 3]);
    expect(asked).toEqual([
      '/v1/liquidaciones',
      '/v1/liquidaciones?page=2',
      '/v1/liquidaciones?page=3',
    ]);
  });
});

describe('the library reads the pages as the CLI does', () => {
  it('a Client without onPage reads every page; with it, hears of each page after the first', async () => {
    const LIQ2 = settlement(2);
    page = (req) => {
      const n = new URL(req.url!, 'http://x').searchParams.get('page') ?? '1';
      if (n === '1') return { body: { data: [LIQ], next: '?page=2' } };
      if (n === '2') return { body: { data: [LIQ2, LIQ2], next: '?page=3' } };
      return { body: { data: [LIQ] } };
    };
    const apiKey = 'svc_test_0123456789abcdef0123456789abcdef';
    const quiet = new Client({ baseUrl: fakeUrl, apiKey });
    const read = (await quiet.listarLiquidaciones()).data.data;
    expect(read.map((l) => l.id)).toEqual([1, 2, 2, 1]);
    const heard: unknown[] = [];
    const told = new Client({ baseUrl: fakeUrl, apiKey, onPage: (p) => heard.push(p) });
    expect((await told.listarLiquidaciones()).data.data).toHaveLength(4);
    expect(heard).toEqual([
      { path: '/v1/liquidaciones', page: 2, items: 1 },
      { path: '/v1/liquidaciones', page: 3, items: 3 },
    ]);
  });
});

describe('the next page is asked for while a page is checked, by the same rules', () => {
  // A service of its own: each page by the query's `page`, as text (so a page can be
  // no JSON), or held unanswered; each reply closes its connection unless told, so the
  // open ones are the pages held.
  type Served =
    | {
        text: string | Buffer;
        headers?: Record<string, string>;
        /** The body's last byte waits for this (the rest is sent before). */
        before?: () => Promise<void>;
      }
    | 'hold';
  let pages: (n: string, time: number) => Served;
  let asked: string[] = [];
  let server: Server;
  let url: string;
  const apiKey = 'svc_test_0123456789abcdef0123456789abcdef';
  const LIQ2 = settlement(2);
  const LIQ3 = settlement(3);
  const json = (body: unknown, headers?: Record<string, string>): Served => ({
    text: JSON.stringify(body),
    ...(headers ? { headers } : {}),
  });

  beforeAll(async () => {
    ({ server, url } = await listen((req, res) => {
      asked.push(req.url!);
      const n = new URL(req.url!, 'http://x').searchParams.get('page') ?? '1';
      const served = pages(n, asked.filter((a) => a === req.url).length);
      if (served === 'hold') return;
      res.writeHead(200, {
        'content-type': 'application/json',
        connection: 'close',
        ...served.headers,
      });
      if (!served.before) return res.end(served.text);
      res.write(served.text.slice(0, -1));
      void served.before().then(() => res.end(served.text.slice(-1)));
    }));
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server?.close(r));
  });

  const openConnections = () =>
    new Promise<number>((resolve, reject) =>
      server.getConnections((err, n) => (err ? reject(err) : resolve(n))),
    );
  /** Until no page is held open (bounded: 1,000 turns of 5 ms); how many still are. */
  const givenUp = async () => {
    for (let i = 0; i < 1000 && (await openConnections()) > 0; i++)
      await new Promise((r) => setTimeout(r, 5));
    return openConnections();
  };

  /** A Client of the fake service whose requests, as it starts each, are in `sent`. */
  const client = () => {
    asked = [];
    const sent: string[] = [];
    const atPage: Record<number, string[]> = {};
    const c = new Client({
      baseUrl: url,
      apiKey,
      backoffMs: 1,
      debug: (line) => {
        const m = /^--> GET (\S+)$/.exec(line);
        if (m) sent.push(m[1]!.slice(url.length));
      },
      onPage: (p) => (atPage[p.page] = [...sent]),
    });
    return { c, sent, atPage };
  };

  it('a page is asked for once its page before arrived whole, before that one’s items are checked', async () => {
    pages = (n) =>
      n === '1'
        ? json({ data: [LIQ], next: '?page=2' })
        : n === '2'
          ? json({ data: [LIQ2] }, { link: '<?page=3>; rel="next"' })
          : json({ data: [LIQ3], has_more: false });
    const { c, sent, atPage } = client();
    const read = (await c.listarLiquidaciones()).data.data;
    expect(read.map((l) => l.id)).toEqual([1, 2, 3]);
    // Heard of page 2 (page 1 read and checked): page 2 was already asked for.
    expect(atPage[2]).toEqual(['/v1/liquidaciones', '/v1/liquidaciones?page=2']);
    expect(atPage[3]).toEqual([
      '/v1/liquidaciones',
      '/v1/liquidaciones?page=2',
      '/v1/liquidaciones?page=3',
    ]);
    expect(sent).toEqual(atPage[3]);
    expect(asked).toEqual(atPage[3]);
  });

  it('a page whose items are of the wrong shape: its error, and the page asked ahead is given up', async () => {
    // Page 1's connection is kept: page 2 is asked for on it (Node hands a kept
    // connection back before the reply is read), so the service hears it at once.
    pages = (n) =>
      n === '1'
        ? json(
            { data: [{ ...LIQ, bruto: 'mucho' }], next: '?page=2' },
            { connection: 'keep-alive' },
          )
        : 'hold';
    const { c, sent } = client();
    await expect(c.listarLiquidaciones()).rejects.toThrow(
      /^la respuesta de GET \/v1\/liquidaciones \(HTTP 200\) no tiene la forma esperada del servicio \(data\.0\.bruto: /,
    );
    expect(sent).toEqual(['/v1/liquidaciones', '/v1/liquidaciones?page=2']);
    // Page 2, asked for and unanswered: svc closes its connection (the service would
    // hold it for ever).
    expect(await givenUp()).toBe(0);
  });

  it('never ahead of what the loop follows: another origin, a page already read', async () => {
    for (const next of [`${strangerUrl}/v1/liquidaciones?page=2`, '/v1/liquidaciones']) {
      pages = () => json({ data: [LIQ], next });
      const { c, sent } = client();
      await expect(c.listarLiquidaciones()).rejects.toThrow(/la lista está incompleta \(next\)/);
      expect(sent).toEqual(['/v1/liquidaciones']);
    }
    pages = (n) =>
      n === '1'
        ? json({ data: [LIQ], next: '?page=2' })
        : json({ data: [LIQ2], next: '/v1/liquidaciones?page=2' });
    const { c, sent } = client();
    await expect(c.listarLiquidaciones()).rejects.toThrow(/repite una ya leída/);
    expect(sent).toEqual(['/v1/liquidaciones', '/v1/liquidaciones?page=2']);
  });

  it('never ahead of what the reader asked for: a list read until it had enough', async () => {
    pages = (n) =>
      n === '1'
        ? json({ data: [LIQ, LIQ2], next: '?page=2' }, { link: '<?page=2>; rel="next"' })
        : json({ data: [LIQ3], has_more: false });
    // Enough in the middle of page 1, and at its last item.
    for (const want of [1, 2]) {
      const { c, sent } = client();
      let n = 0;
      const { data } = await c.iterarLiquidaciones({ until: () => ++n >= want });
      expect([...data].map((l) => l.id)).toEqual([1, 2].slice(0, want));
      expect(data.cut).toBe(true);
      expect(sent).toEqual(['/v1/liquidaciones']);
    }
    // Not enough by page 1's end: page 2 is asked for as a whole read asks for it.
    const { c, sent, atPage } = client();
    let n = 0;
    const { data } = await c.iterarLiquidaciones({ until: () => ++n >= 3 });
    expect([...data].map((l) => l.id)).toEqual([1, 2, 3]);
    expect(atPage[2]).toEqual(['/v1/liquidaciones', '/v1/liquidaciones?page=2']);
    expect(sent).toEqual(['/v1/liquidaciones', '/v1/liquidaciones?page=2']);
  });

  it('a page read again (its first reply no JSON) asks for the next page once; a next that changed, anew', async () => {
    // Page 1's first reply has an item that is no JSON (retried); its envelope is fine.
    pages = (n, time) =>
      n === '1'
        ? time === 1
          ? { text: `{"data":[{"id":1,}],"next":"?page=2"}` }
          : json({ data: [LIQ], next: '?page=2' })
        : json({ data: [LIQ2] });
    const same = client();
    const read = (await same.c.listarLiquidaciones()).data.data;
    expect(read.map((l) => l.id)).toEqual([1, 2]);
    expect(same.sent).toEqual([
      '/v1/liquidaciones',
      '/v1/liquidaciones?page=2',
      '/v1/liquidaciones',
    ]);
    // The page read again points elsewhere: the page asked ahead is given up.
    pages = (n, time) =>
      n === '1'
        ? time === 1
          ? { text: `{"data":[{"id":1,}],"next":"?page=9"}` }
          : json({ data: [LIQ], next: '?page=2' })
        : n === '9'
          ? 'hold'
          : json({ data: [LIQ2] });
    const moved = client();
    expect((await moved.c.listarLiquidaciones()).data.data.map((l) => l.id)).toEqual([1, 2]);
    expect(await givenUp()).toBe(0);
    expect(moved.sent).toEqual([
      '/v1/liquidaciones',
      '/v1/liquidaciones?page=9',
      '/v1/liquidaciones',
      '/v1/liquidaciones?page=2',
    ]);
  });

  it('an empty page that has a next: svc reads on, every page once', async () => {
    pages = (n) =>
      n === '1'
        ? json({ data: [], next: '?page=2' })
        : n === '2'
          ? json({ data: [LIQ], has_more: true, next: '?page=3' })
          : n === '3'
            ? json({ data: [], has_more: true, next: '?page=4' })
            : json({ data: [LIQ2], has_more: false, next: null });
    const { c, sent } = client();
    expect((await c.listarLiquidaciones()).data.data.map((l) => l.id)).toEqual([1, 2]);
    expect(sent).toEqual([
      '/v1/liquidaciones',
      '/v1/liquidaciones?page=2',
      '/v1/liquidaciones?page=3',
      '/v1/liquidaciones?page=4',
    ]);
    const r = await svc(['liquidaciones'], { env: { SVC_BASE_URL: url, SVC_API_KEY: apiKey } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('te_queda 198.02\t(2 liquidaciones)');
  });

  it('each page compressed its own way (gzip, none, br) although svc asks for none', async () => {
    pages = (n) =>
      n === '1'
        ? {
            text: gzipSync(JSON.stringify({ data: [LIQ], next: '?page=2' })),
            headers: { 'content-encoding': 'gzip' },
          }
        : n === '2'
          ? json({ data: [LIQ2], next: '?page=3' })
          : {
              text: brotliCompressSync(JSON.stringify({ data: [LIQ3], next: null })),
              headers: { 'content-encoding': 'br' },
            };
    const { c, sent } = client();
    expect((await c.listarLiquidaciones()).data.data.map((l) => l.id)).toEqual([1, 2, 3]);
    expect(sent).toHaveLength(3);
  });

  it('a first page asked with a filter that points to itself: read once, then stopped', async () => {
    const tx = {
      id: 1,
      cobro_id: 1,
      medio: 'qr',
      monto: '100.00',
      te_cobramos: '0.99',
      te_queda: '99.01',
      estado: 'ACREDITADO',
      codigo: 'T1',
      fecha: '2026-11-20 10:00:00',
      acreditacion: '2026-11-21 10:00:00',
    };
    pages = () => json({ data: [tx], next: '/v1/transacciones?medio=qr' });
    const { c, sent } = client();
    await expect(c.listarTransacciones({ medio: 'qr' })).rejects.toThrow(
      /^GET \/v1\/transacciones: la lista está incompleta \(next\): la página siguiente repite una ya leída; .*\(leídos hasta acá: 1\)$/,
    );
    expect(sent).toEqual(['/v1/transacciones?medio=qr']);
  });

  it('with Link rel="next", the next page is asked for once the head arrives, before the body', async () => {
    // Page N's body ends only once page N+1 is asked for (or after 200 turns of 5 ms).
    const askedBeforeEnd: Record<string, boolean> = {};
    const waitingFor = (n: string) => async () => {
      const next = () => asked.includes(`/v1/liquidaciones?page=${n}`);
      for (let i = 0; i < 200 && !next(); i++) await new Promise((r) => setTimeout(r, 5));
      askedBeforeEnd[n] = next();
    };
    const page = (item: unknown, next: string): Served => ({
      text: JSON.stringify({ data: [item] }),
      headers: { link: `<?page=${next}>; rel="next"` },
      before: waitingFor(next),
    });
    pages = (n) =>
      n === '1' ? page(LIQ, '2') : n === '2' ? page(LIQ2, '3') : json({ data: [LIQ3] });
    const { c, sent } = client();
    expect((await c.listarLiquidaciones()).data.data.map((l) => l.id)).toEqual([1, 2, 3]);
    expect(askedBeforeEnd).toEqual({ '2': true, '3': true });
    expect(sent).toEqual([
      '/v1/liquidaciones',
      '/v1/liquidaciones?page=2',
      '/v1/liquidaciones?page=3',
    ]);
  });

  it('a page read again that now points to another origin: the page asked ahead is given up', async () => {
    pages = (n, time) =>
      n === '1'
        ? time === 1
          ? { text: `{"data":[{"id":1,}],"next":"?page=2"}` }
          : json({ data: [LIQ], next: `${strangerUrl}/v1/liquidaciones?page=2` })
        : 'hold';
    const before = strangerHits;
    const { c, sent } = client();
    await expect(c.listarLiquidaciones()).rejects.toThrow(
      /la página siguiente está en otro origen/,
    );
    expect(sent).toEqual(['/v1/liquidaciones', '/v1/liquidaciones?page=2', '/v1/liquidaciones']);
    expect(await givenUp()).toBe(0);
    expect(strangerHits).toBe(before);
  });

  it('a Client with a fetch of its own reads every page, one after the other', async () => {
    pages = (n) =>
      n === '1'
        ? json({ data: [LIQ] }, { link: '<?page=2>; rel="next"' })
        : n === '2'
          ? json({ data: [LIQ2], next: '?page=3' })
          : json({ data: [LIQ3] });
    const fetched: string[] = [];
    const c = new Client({
      baseUrl: url,
      apiKey,
      fetch: (input, init) => {
        fetched.push(String(input).slice(url.length));
        return fetch(input, init);
      },
    });
    asked = [];
    expect((await c.listarLiquidaciones()).data.data.map((l) => l.id)).toEqual([1, 2, 3]);
    expect(fetched).toEqual([
      '/v1/liquidaciones',
      '/v1/liquidaciones?page=2',
      '/v1/liquidaciones?page=3',
    ]);
  });
});
