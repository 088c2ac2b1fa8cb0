// api/exact.ts: the one place that tells a list item svc cannot take exactly from one of
// the wrong shape, and writes such a row back as it was sent.
import { describe, expect, it } from 'vitest';
import {
  exactItem,
  inexactOf,
  jsonText,
  markOf,
  parseExact,
  rawMembers,
  reindent,
} from '../../src/api/exact.js';
import { Abierto } from '../../src/api/schemas.js';
import { ListStream, SEGMENT_CHARS, scanList } from '../../src/api/list.js';

const dev = {
  id: 7,
  cobro_id: 4,
  monto: '10.00',
  tipo: 'parcial',
  estado: 'PAGADA',
  created_at: '2026-11-27 05:10:03',
};

describe('inexactOf', () => {
  it.each([
    [{ ...dev, monto: '10.001' }, 'monto 10.001 con más de dos decimales'],
    [{ ...dev, monto: '1234567890123.00' }, 'monto 1234567890123.00 de más de 12 cifras enteras'],
    [{ ...dev, id: 2 ** 53 + 2 }, 'id más allá de 2^53−1'],
    [
      { ...dev, cobro_id: 1e30, monto: '0.001' },
      'cobro_id más allá de 2^53−1; monto 0.001 con más de dos decimales',
    ],
  ])('%j: %s', (item, why) => {
    expect(inexactOf(Abierto.Devolucion, item)).toBe(why);
  });
  it.each([
    dev,
    { ...dev, monto: '-5.00' },
    { ...dev, monto: '1e3' },
    { ...dev, monto: 10 },
    { ...dev, monto: '10.001', estado: 5 },
    { ...dev, id: 1.5 },
    { ...dev, id: 2 ** 53 + 2, created_at: 'ayer' },
  ])('%j: fits, or is of the wrong shape: not marked', (item) => {
    expect(inexactOf(Abierto.Devolucion, item)).toBeUndefined();
  });
});

describe('a row kept as sent', () => {
  const text = '{"id":9007199254740993,"cobro_id":4,"monto":"10.00","nested":{"a":[1,{}]}}';
  it('rawMembers reads each top-level value as written', () => {
    expect([...rawMembers(text)]).toEqual([
      ['id', '9007199254740993'],
      ['cobro_id', '4'],
      ['monto', '"10.00"'],
      ['nested', '{"a":[1,{}]}'],
    ]);
  });
  it('exactItem gives the digits sent for an integer JSON cannot hold, and marks the row', () => {
    const row = exactItem(JSON.parse(text) as Record<string, unknown>, text, {
      why: 'id más allá de 2^53−1',
      kind: 'la devolución',
    });
    expect(row.id).toBe('9007199254740993');
    expect(markOf(row)?.text).toBe(text);
    // --json: as JSON.stringify(…, null, 2) lays it out, every token as sent.
    expect(jsonText([row, { id: 1 }])).toBe(
      '[\n  {\n    "id": 9007199254740993,\n    "cobro_id": 4,\n    "monto": "10.00",\n    "nested": {\n      "a": [\n        1,\n        {}\n      ]\n    }\n  },\n  {\n    "id": 1\n  }\n]',
    );
  });
  it('reindent lays out any JSON as JSON.stringify(…, null, 2) does', () => {
    for (const value of [{ a: [1, 2, { b: 'x, y: "z"' }], c: {}, d: [] }, [], 'a\\"b', null]) {
      expect(reindent(JSON.stringify(value))).toBe(JSON.stringify(value, null, 2));
    }
  });
});

describe('the list reader keeps the mark with its item, however the list arrived', () => {
  // Over one piece of ListStream (SEGMENT_CHARS): the marked items sit in different pieces.
  const n = Math.ceil((SEGMENT_CHARS * 2) / 110);
  const items = Array.from({ length: n }, (_, i) => ({ ...dev, id: i + 1 }));
  const odd = new Set([0, Math.floor(n / 2), n - 1]);
  const text = `{"data":[${items
    .map((it, i) =>
      odd.has(i)
        ? JSON.stringify({ ...it, id: 0 }).replace('"id":0', `"id":900719925474099${i % 10}1`)
        : JSON.stringify(it),
    )
    .join(',')}]}`;
  const check = (value: unknown) => {
    const why = inexactOf(Abierto.Devolucion, value);
    return why ? { why, kind: 'la devolución' } : undefined;
  };
  const marked = (list: Iterable<unknown>) =>
    [...list].flatMap((row, i) => (markOf(row) ? [[i, (row as { id: unknown }).id]] : []));
  const want = [...odd].map((i) => [i, `900719925474099${i % 10}1`]);

  it('scanList, whole or scanned', () => {
    expect(marked(scanList(text, check)!)).toEqual(want);
    expect(marked(scanList(text, check, 0)!)).toEqual(want);
    const small =
      '{"data":[{"id":1e30,"cobro_id":4,"monto":"1.00","tipo":"parcial","estado":"PAGADA","created_at":"2026-11-27 05:10:03"}]}';
    expect(marked(scanList(small, check)!)).toEqual([[0, '1e30']]);
  });
  it('ListStream, in pieces', () => {
    const stream = new ListStream();
    const bytes = new TextEncoder().encode(text);
    for (let at = 0; at < bytes.length; at += 65_536) stream.push(bytes.subarray(at, at + 65_536));
    const list = stream.result(check)!;
    expect(list.length).toBe(n);
    expect(marked(list)).toEqual(want);
  });
});

describe('parseExact: svc --json read back without losing an id', () => {
  it('keeps an integer past 2^53 − 1 as its digits, and everything else as JSON.parse reads it', () => {
    expect(
      parseExact(
        '[{"id": 9007199254740993, "n": -9007199254740993, "s": "9007199254740993 \\" 1", "f": 1.5, "e": 1e30, "ok": 42, "x": [null, true, 9007199254740991]}]',
      ),
    ).toEqual([
      {
        id: '9007199254740993',
        n: '-9007199254740993',
        s: '9007199254740993 " 1',
        f: 1.5,
        e: 1e30,
        ok: 42,
        x: [null, true, 9007199254740991],
      },
    ]);
    expect(() => parseExact('{"id": 1,}')).toThrow(SyntaxError);
  });
});
