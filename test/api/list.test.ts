// List bodies read item by item (src/api/list.ts) must mean exactly what JSON.parse
// says of the whole text: same items, same envelope, and refused whenever JSON.parse
// would throw or the body is not `{ data: [...] }`. And `--json` of a list printed
// item by item must be byte-identical to printing the whole array at once.
import fc from 'fast-check';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  ItemList,
  linkNext,
  ListStream,
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
