// List bodies read item by item (src/api/list.ts) must mean exactly what JSON.parse
// says of the whole text: same items, same envelope, and refused whenever JSON.parse
// would throw or the body is not `{ data: [...] }`. And `--json` of a list printed
// item by item must be byte-identical to printing the whole array at once.
import fc from 'fast-check';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  IncompleteListError,
  ItemList,
  linkNext,
  ListStream,
  PagedList,
  pagingOf,
  scanList,
  SEGMENT_CHARS,
  WHOLE_BODY_CHARS,
} from '../../src/api/list.js';
import { printJson, printJsonItems } from '../../src/output/format.js';
import type { IO } from '../../src/output/io.js';

/** What JSON.parse says: the body when it is `{…, data: [...]}`, else undefined (or 'invalid'). */
function reference(text: string): Record<string, unknown> | undefined | 'invalid' {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return 'invalid';
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  return Array.isArray((body as { data?: unknown }).data)
    ? (body as Record<string, unknown>)
    : undefined;
}

/** Both ways of reading a body agree with JSON.parse: parsed whole (short bodies) and scanned (long ones, forced here with a limit of 0). */
function agrees(text: string): void {
  const expected = reference(text);
  for (const wholeUpTo of [WHOLE_BODY_CHARS, 0]) {
    const list = scanList(text, undefined, wholeUpTo);
    if (expected === undefined || expected === 'invalid') {
      expect(list, text).toBeUndefined();
      continue;
    }
    expect(list, text).toBeInstanceOf(ItemList);
    expect(list!.toBody()).toStrictEqual(expected);
    expect(list!.length).toBe((expected.data as unknown[]).length);
    expect([...list!]).toStrictEqual(expected.data);
  }
}

const envelopes = fc.record(
  {
    before: fc.dictionary(
      fc.string({ maxLength: 6 }).filter((k) => k !== 'data' && k !== '__proto__'),
      fc.jsonValue({ maxDepth: 2 }),
      { maxKeys: 2 },
    ),
    data: fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 8 }),
    after: fc.dictionary(
      fc.string({ maxLength: 6 }).filter((k) => k !== 'data' && k !== '__proto__'),
      fc.jsonValue({ maxDepth: 2 }),
      { maxKeys: 2 },
    ),
  },
  { noNullPrototype: true },
);
const indent = fc.constantFrom(undefined, 0, 1, 2, '\t', ' \n ');

function text(
  e: { before: object; data: unknown[]; after: object },
  space: string | number | undefined,
): string {
  return JSON.stringify({ ...e.before, data: e.data, ...e.after }, null, space as string);
}

describe('scanList', () => {
  it('gives the items and envelope JSON.parse gives, at any indentation', () => {
    fc.assert(
      fc.property(envelopes, indent, (e, space) => agrees(text(e, space))),
      { numRuns: 400 },
    );
  });

  it('agrees with JSON.parse on any JSON text (lists or not)', () => {
    fc.assert(
      fc.property(fc.json({ maxDepth: 4 }), (t) => agrees(t)),
      { numRuns: 400 },
    );
  });

  it('agrees with JSON.parse on list bodies with one character deleted, inserted or replaced', () => {
    const edits = fc.tuple(
      fc.constantFrom('delete', 'insert', 'replace'),
      fc.nat(),
      fc.constantFrom(...'{}[],:"\\ 0a-'.split('')),
    );
    fc.assert(
      fc.property(envelopes, indent, edits, (e, space, [kind, at, ch]) => {
        const t = text(e, space);
        const i = at % (t.length + 1);
        const edited =
          kind === 'delete'
            ? t.slice(0, i) + t.slice(i + 1)
            : kind === 'insert'
              ? t.slice(0, i) + ch + t.slice(i)
              : t.slice(0, i) + ch + t.slice(i + 1);
        agrees(edited);
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    ['{"data":[]}'],
    ['{"data":[1,]}'],
    ['{"data":[,1]}'],
    ['{"data":[1,,2]}'],
    ['{"data":[1 2]}'],
    ['{"data":[1}]'],
    ['{"data":[{"a":1]}]}'],
    ['{"data":[1]} x'],
    ['{"data":[1]}{}'],
    ['{"data":[1]'],
    ['{"d\\u0061ta":[1,2]}'],
    ['{"data":[1],"data":{"x":1}}'],
    ['{"data":{"x":1},"data":[3]}'],
    ['{"data":[1],"data":[2,3]}'],
    ['{"x":{"data":[1]},"data":[2]}'],
    ['{"x":[{"data":[9]}],"data":["]",",","[\\"],[\\\\"]}'],
    ['{"data":["\\u00f1", "N° 1", "\\ud83d\\ude00"]}'],
    ['{"data":[1]} \n'],
    ['  {"data" : [ 1 , [2,3] , {"a":[4]} ] , "b" : null }  '],
    ['[{"data":[1]}]'],
    ['"data"'],
    [''],
    ['{"data":"[1,2]"}'],
  ])('%s', (t) => agrees(t));

  it('hands every item to check once, in order, and lets it throw', () => {
    for (const wholeUpTo of [WHOLE_BODY_CHARS, 0]) {
      const seen: [unknown, number][] = [];
      scanList('{"data":[{"id":1},"b",[3]]}', (item, i) => seen.push([item, i]), wholeUpTo);
      expect(seen).toStrictEqual([
        [{ id: 1 }, 0],
        ['b', 1],
        [[3], 2],
      ]);
      expect(() =>
        scanList(
          '{"data":[1,2]}',
          (item) => {
            if (item === 2) throw new Error('wrong shape');
          },
          wholeUpTo,
        ),
      ).toThrow('wrong shape');
    }
  });
});

function captureIO(): { io: IO; output: () => string; writes: () => number } {
  let out = '';
  let writes = 0;
  const io = {
    stdout: { write: (s: string) => ((out += s), writes++, true) },
    out: (line = '') => ((out += `${line}\n`), writes++),
  } as unknown as IO;
  return { io, output: () => out, writes: () => writes };
}

describe('printJsonItems', () => {
  it('prints the bytes printJson prints for the whole array', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 12 }),
        async (items) => {
          const whole = captureIO();
          printJson(whole.io, items);
          const streamed = captureIO();
          await printJsonItems(streamed.io, scanList(JSON.stringify({ data: items }))!);
          expect(streamed.output()).toBe(whole.output());
        },
      ),
      { numRuns: 300 },
    );
  });

  const long = Array.from({ length: 10_000 }, (_, i) => ({
    id: i + 1,
    concepto: `Seña N° ${i}\n"línea"`,
    monto: `${i}.50`,
    extra: null,
  }));

  it('writes a long list in chunks, still byte-identical', async () => {
    const whole = captureIO();
    printJson(whole.io, long);
    const streamed = captureIO();
    await printJsonItems(streamed.io, long);
    expect(streamed.output()).toBe(whole.output());
    expect(streamed.writes()).toBeGreaterThan(10);
  });

  it('waits for a slow reader instead of queueing the whole output in memory', async () => {
    let most = 0;
    let received = '';
    const stdout = new Writable({
      highWaterMark: 16 * 1024,
      write(chunk: Buffer, _enc, done) {
        received += chunk.toString();
        setImmediate(done); // a reader that takes its time
      },
    });
    const io = { stdout, out: (line = '') => stdout.write(`${line}\n`) } as unknown as IO;
    const watch = setInterval(() => (most = Math.max(most, stdout.writableLength)), 0);
    const spy = stdout.write.bind(stdout);
    stdout.write = ((chunk: string) => {
      const ok = spy(chunk);
      most = Math.max(most, stdout.writableLength);
      return ok;
    }) as typeof stdout.write;
    await printJsonItems(io, long);
    clearInterval(watch);
    await new Promise((resolve) => stdout.end(resolve));
    expect(received).toBe(`${JSON.stringify(long, null, 2)}\n`);
    expect(received.length).toBeGreaterThan(1_000_000);
    // One chunk of about 64 KB at a time, never the megabytes behind it.
    expect(most).toBeLessThan(200 * 1024);
  });
});

describe('pagingOf: the signs of a partial list', () => {
  it('reads Link rel="next" (RFC 8288: several links, unquoted or several rels)', () => {
    expect(linkNext('<https://a/x?p=2>; rel="next", <https://a/x?p=9>; rel="last"')).toEqual([
      'https://a/x?p=2',
    ]);
    expect(linkNext('</x?p=2>; rel=next')).toEqual(['/x?p=2']);
    expect(linkNext('<https://a/x?p=2>; title="y"; rel="prefetch next"')).toEqual([
      'https://a/x?p=2',
    ]);
    expect(linkNext('<https://a/x?p=1>; rel="prev"')).toEqual([]);
    expect(linkNext(undefined)).toEqual([]);
  });

  it('finds next addresses, cursors, has_more, page counts and totals in the envelope', () => {
    const none = { signs: [] };
    expect(pagingOf(undefined, { data: [] })).toEqual(none);
    expect(pagingOf(undefined, { data: [], has_more: false, next: null, total: 2 })).toEqual({
      signs: [],
      total: { value: 2, sign: 'total: 2' },
    });
    expect(pagingOf(undefined, { next_url: '/v1/cobros?page=2' }).next).toEqual({
      href: '/v1/cobros?page=2',
      sign: 'next_url',
    });
    expect(pagingOf(undefined, { _links: { next: { href: 'https://a/p2' } } }).next?.sign).toBe(
      '_links.next',
    );
    expect(pagingOf(undefined, { hasMore: true }).signs).toEqual(['hasMore: true']);
    expect(pagingOf(undefined, { next_page: 2 }).signs).toEqual(['next_page: 2']);
    expect(pagingOf(undefined, { meta: { next_cursor: 'c1' } }).signs).toEqual([
      'meta.next_cursor: "c1"',
    ]);
    expect(pagingOf(undefined, { page: 1, total_pages: 3 }).signs).toEqual(['página 1 de 3']);
    expect(pagingOf(undefined, { page: 3, total_pages: 3 }).signs).toEqual([]);
    // The header comes first.
    expect(pagingOf('</h>; rel="next"', { next: '/b' }).next?.sign).toBe('Link rel="next"');
  });
});

describe('pagingOf: what is a sign and what is not', () => {
  it('an address is absolute (http or https), a path or a query; anything else is a sign with no address', () => {
    for (const href of ['https://a/p2', 'HTTP://a/p2', '/v1/cobros?page=2', '?page=2', '  /p2  '])
      expect(pagingOf(undefined, { next: href }).next, href).toEqual({
        href: href.trim(),
        sign: 'next',
      });
    for (const value of ['p2', 'ftp://a/p2', 'javascript:alert(1)', 42, true, { page: 2 }])
      expect(pagingOf(undefined, { next: value }), JSON.stringify(value)).toEqual({
        signs: [`next: ${JSON.stringify(value)}`],
      });
    // A next whose href is no text is a sign, not an address (nor a crash).
    expect(pagingOf(undefined, { next: { href: 5 } })).toEqual({ signs: ['next: {"href":5}'] });
    const long = 'p'.repeat(200);
    expect(pagingOf(undefined, { next_page: long }).signs).toEqual([
      `next_page: ${JSON.stringify(long).slice(0, 60)}`,
    ]);
    expect(pagingOf(undefined, { next: { href: '/p2' } }).next).toEqual({
      href: '/p2',
      sign: 'next',
    });
  });

  it('an empty, null or false next, cursor or has_more says nothing follows', () => {
    for (const value of [null, false, '', undefined])
      for (const key of ['next', 'next_cursor', 'has_more'])
        expect(pagingOf(undefined, { [key]: value }), `${key}: ${String(value)}`).toEqual({
          signs: [],
        });
    // Blanks are something, but no address.
    expect(pagingOf(undefined, { next: '   ' })).toEqual({ signs: ['next: "   "'] });
    // has_more speaks only as the boolean true.
    expect(pagingOf(undefined, { has_more: 'true' }).signs).toEqual([]);
    expect(pagingOf(undefined, { has_more: 1 }).signs).toEqual([]);
  });

  it('names are read whatever their case, underscores or dashes; the first next address wins', () => {
    expect(pagingOf(undefined, { 'Next-URL': '/b', next: '/c' }).next).toEqual({
      href: '/b',
      sign: 'Next-URL',
    });
    expect(pagingOf(undefined, { HAS_MORE: true, TotalCount: 5 })).toEqual({
      signs: ['HAS_MORE: true'],
      total: { value: 5, sign: 'TotalCount: 5' },
    });
    expect(pagingOf(undefined, { Pagination: { Next_Page_Token: 'x' } }).signs).toEqual([
      'Pagination.Next_Page_Token: "x"',
    ]);
  });

  it('a long value is cut in the sign, not the address', () => {
    const long = 'c'.repeat(200);
    expect(pagingOf(undefined, { next_cursor: long }).signs).toEqual([
      `next_cursor: ${JSON.stringify(long).slice(0, 60)}`,
    ]);
  });

  it('totals: whole numbers from 0 up, the largest one declared', () => {
    expect(pagingOf(undefined, { total: 0 }).total).toEqual({ value: 0, sign: 'total: 0' });
    expect(pagingOf(undefined, { total: 3, meta: { total_count: 9 } }).total).toEqual({
      value: 9,
      sign: 'meta.total_count: 9',
    });
    expect(pagingOf(undefined, { total: 9, meta: { total_count: 3 } }).total).toEqual({
      value: 9,
      sign: 'total: 9',
    });
    // Two equal totals: the first one is the one named.
    expect(pagingOf(undefined, { total: 5, meta: { total_count: 5 } }).total?.sign).toBe(
      'total: 5',
    );
    for (const bad of [-1, 2.5, '7', 2 ** 53, null])
      expect(pagingOf(undefined, { total: bad }).total, String(bad)).toBeUndefined();
  });

  it('page numbers: a page below the page count is a sign; either one missing or not whole, none', () => {
    expect(pagingOf(undefined, { meta: { current_page: 2, last_page: 5 } }).signs).toEqual([
      'página 2 de 5',
    ]);
    expect(pagingOf(undefined, { page: 5, pages: 4 }).signs).toEqual([]);
    expect(pagingOf(undefined, { page: 1 }).signs).toEqual([]);
    expect(pagingOf(undefined, { total_pages: 3 }).signs).toEqual([]);
    expect(pagingOf(undefined, { page: 1.5, total_pages: 3 }).signs).toEqual([]);
    expect(pagingOf(undefined, { page: 1, total_pages: '3' }).signs).toEqual([]);
    expect(pagingOf(undefined, { page: 1, total_pages: 2.5 }).signs).toEqual([]);
    // Other numbers of the envelope are no page count.
    expect(pagingOf(undefined, { page: 1, per_page: 50, limit: 50 }).signs).toEqual([]);
  });

  it('only the containers services use are looked into, one level deep, and never a list', () => {
    expect(pagingOf(undefined, { extra: { next: '/p2' } })).toEqual({ signs: [] });
    expect(pagingOf(undefined, { links: [{ next: '/p2' }] })).toEqual({ signs: [] });
    expect(pagingOf(undefined, { meta: { links: { next: '/p2' } } })).toEqual({ signs: [] });
    expect(pagingOf(undefined, { meta: null })).toEqual({ signs: [] });
    for (const box of ['links', '_links', 'pagination', 'paging', 'meta', 'page_info', 'pageInfo'])
      expect(pagingOf(undefined, { [box]: { next: '/p2' } }).next?.sign, box).toBe(`${box}.next`);
  });
});

describe('pagingOf: every name services give their paging details is read', () => {
  it.each(['next', 'next_url', 'next_page', 'next_page_url', 'next_link', 'next_href'])(
    '%s: the next page’s address',
    (key) => {
      expect(pagingOf(undefined, { [key]: '/v1/cobros?p=2' })).toEqual({
        signs: [],
        next: { href: '/v1/cobros?p=2', sign: key },
      });
    },
  );
  it.each([
    'next_cursor',
    'next_page_token',
    'next_token',
    'next_page_cursor',
    'cursor_next',
    'next_offset',
  ])('%s: a cursor, more with no address', (key) => {
    expect(pagingOf(undefined, { [key]: 'abc' })).toEqual({ signs: [`${key}: "abc"`] });
  });
  it.each(['has_more', 'has_next', 'has_next_page', 'more_items', 'truncated'])(
    '%s: true says more follows',
    (key) => {
      expect(pagingOf(undefined, { [key]: true })).toEqual({ signs: [`${key}: true`] });
    },
  );
  it.each(['total', 'total_count', 'total_items', 'total_results', 'total_entries', 'count'])(
    '%s: the whole list’s count',
    (key) => {
      expect(pagingOf(undefined, { [key]: 7 })).toEqual({
        signs: [],
        total: { value: 7, sign: `${key}: 7` },
      });
    },
  );
  it('page and page count, under each of their names', () => {
    for (const page of ['page', 'current_page', 'page_number'])
      for (const pages of ['total_pages', 'pages', 'last_page', 'page_count'])
        expect(pagingOf(undefined, { [page]: 1, [pages]: 2 }).signs, `${page} ${pages}`).toEqual([
          'página 1 de 2',
        ]);
  });
});

describe('linkNext: the Link header as RFC 8288 writes it', () => {
  it('rel in any case, among other parameters, in several header lines', () => {
    expect(linkNext('<https://a/2>; REL="Next"')).toEqual(['https://a/2']);
    expect(linkNext(['<https://a/1>; rel="prev"', '<https://a/3>; rel="next"'])).toEqual([
      'https://a/3',
    ]);
    expect(linkNext('< https://a/2 >; type="text/html"; rel=next')).toEqual(['https://a/2']);
    // Blanks around ";" and "=" or none at all, as servers write them.
    expect(linkNext('<https://a/2>;rel=next')).toEqual(['https://a/2']);
    expect(linkNext('<https://a/2> ; rel = "next"')).toEqual(['https://a/2']);
    expect(linkNext('<https://a/2>; rel="nextish"')).toEqual([]);
    expect(linkNext('<https://a/2>; anchor="next"')).toEqual([]);
    expect(linkNext('')).toEqual([]);
  });
});

describe('PagedList: the pages of one list read as one', () => {
  const page = (items: unknown[], envelope: Record<string, unknown> = {}) =>
    new ItemList('', [], { ...envelope, data: [] }, items);

  it('items in the order the pages gave them, each at its index, the last page’s envelope', () => {
    const list = new PagedList([
      page([1, 2, 3], { page: 1 }),
      page([], { page: 2 }),
      page([4], { page: 3 }),
      page([5, 6], { page: 4, has_more: false }),
    ]);
    expect(list.length).toBe(6);
    expect(list.seen).toBe(6);
    expect([...list]).toEqual([1, 2, 3, 4, 5, 6]);
    expect(Array.from({ length: 6 }, (_, i) => list.at(i))).toEqual([1, 2, 3, 4, 5, 6]);
    for (const outside of [-1, 6, 1.5, Number.NaN])
      expect(list.at(outside), String(outside)).toBeUndefined();
    expect(list.envelope).toEqual({ page: 4, has_more: false, data: [] });
    expect(list.toBody()).toEqual({ page: 4, has_more: false, data: [1, 2, 3, 4, 5, 6] });
  });

  it('counts what each page was sent, kept or not', () => {
    const kept = page([1]);
    kept.seen = 40;
    expect(new PagedList([kept, page([2, 3])]).seen).toBe(42);
  });

  it('no pages: an empty list', () => {
    const list = new PagedList([]);
    expect([list.length, [...list], list.at(0), list.envelope]).toEqual([0, [], undefined, {}]);
  });
});

describe('IncompleteListError: exit 6, never a figure', () => {
  it('names the path, the sign, why, and how many items came', () => {
    const err = new IncompleteListError('/v1/cobros', 'has_more: true', 'sin dirección', 40);
    expect([err.exitCode, err.code, err.name, err.path, err.problem, err.items]).toEqual([
      6,
      'lista_incompleta',
      'IncompleteListError',
      '/v1/cobros',
      'has_more: true',
      40,
    ]);
    expect(err.message).toBe(
      'GET /v1/cobros: la lista está incompleta (has_more: true): sin dirección; svc no da totales ni montos de una lista incompleta (leídos hasta acá: 40)',
    );
  });
});

describe('ListStream: a list read as its bytes arrive', () => {
  const read = (body: string, cut: number[]) => {
    const bytes = Buffer.from(body);
    const s = new ListStream();
    let from = 0;
    for (const at of [...cut, bytes.length]) {
      s.push(bytes.subarray(from, at));
      from = at;
    }
    return s.result();
  };
  const BODIES = [
    '{"data":[]}',
    ' { "data" : [ {"a":"x,]}\\"\\\\"}, [1,[2]], "ñ€😀", 3 ] , "next" : null } ',
    '{"has_more":false,"data":[{"b":{"c":[{}]}}],"total":1}',
    '{"data":[1],"data":[{"last":true}]}',
  ];
  it('gives the items and envelope JSON.parse gives, however the bytes are cut', () => {
    for (const body of BODIES) {
      const whole = JSON.parse(body);
      const n = Buffer.byteLength(body);
      for (let at = 0; at <= n; at++) {
        const list = read(body, [at]);
        expect(list, `${body} cut at ${at}`).toBeDefined();
        expect([...list!], body).toEqual(whole.data);
        expect(list!.envelope, body).toEqual({ ...whole, data: [] });
      }
      expect([
        ...read(
          body,
          Array.from({ length: n }, (_, i) => i),
        )!,
      ]).toEqual(whole.data);
    }
  });

  it('is no list where scanList says so', () => {
    for (const body of [
      '[]',
      '{"data":{}}',
      '{"data":[1,]}',
      '{"data":[,1]}',
      '{"data":[}',
      '{"data":[]} x',
      '{"x":1}',
    ])
      expect(read(body, [3]), body).toBeUndefined();
  });

  it('keeps a long list in pieces, in order', () => {
    const items = Array.from({ length: 30_000 }, (_, i) => ({
      id: i,
      concepto: `pedido ${i} `.repeat(8),
    }));
    const body = JSON.stringify({ data: items });
    expect(body.length).toBeGreaterThan(2 * SEGMENT_CHARS);
    const cuts = Array.from(
      { length: Math.floor(body.length / 65_536) },
      (_, i) => (i + 1) * 65_536,
    );
    const list = read(body, cuts)!;
    expect(list.length).toBe(items.length);
    expect(list.at(29_999)).toEqual(items[29_999]);
    expect([...list].map((x) => (x as { id: number }).id)).toEqual(items.map((x) => x.id));
  });
});
