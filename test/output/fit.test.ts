// Tables that fit the terminal: how wide a text is on screen, how a free-text cell is
// shortened, and which widths a table gets (src/text.ts, src/output/format.ts). Pure.
import { describe, expect, it } from 'vitest';
import { fitColumns, type ColumnSize } from '../../src/output/format.js';
import { displayWidth, fitWidth } from '../../src/text.js';

describe('displayWidth and fitWidth', () => {
  it.each([
    ['Pedido 1042', 11],
    ['', 0],
    ['Señá', 4],
    ['e\u0301', 1],
    ['日本語', 6],
    ['👨‍👩‍👧', 2],
    ['ok ✅', 5],
  ])('%j takes %i columns', (text, width) => expect(displayWidth(text)).toBe(width));

  it('shortens to the width with "…", never splitting a character', () => {
    expect(fitWidth('Pedido 1042', 20)).toBe('Pedido 1042');
    expect(fitWidth('Pedido 1042', 8)).toBe('Pedido …');
    expect(displayWidth(fitWidth('Pedido 1042', 8))).toBe(8);
    expect(fitWidth('日本語のテキスト', 7)).toBe('日本語…');
    expect(fitWidth('👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧', 4)).toBe('👨‍👩‍👧…');
    expect(fitWidth('abc', 0)).toBe('');
  });
});

describe('fitColumns', () => {
  const col = (natural: number, extra: Partial<ColumnSize> = {}): ColumnSize => ({
    header: Math.min(natural, 6),
    natural,
    ...extra,
  });

  it('a table that fits keeps its widths', () => {
    expect(fitColumns([col(3), col(10), col(30, { shrink: true })], 80)).toEqual([3, 10, 30]);
  });

  it('free text gives first, the widest first; fixed columns never change', () => {
    // 3 + 10 + 100 + 40 + 3 gaps of 2 = 159 on 80 columns: 61 left for the two free columns.
    const widths = fitColumns(
      [col(3), col(10), col(100, { shrink: true }), col(40, { shrink: true })],
      80,
    );
    expect(widths.slice(0, 2)).toEqual([3, 10]);
    expect(widths[2]! + widths[3]!).toBe(61);
    expect(widths[2]).toBeGreaterThanOrEqual(widths[3]!);
    const all = widths.reduce<number>((s, w) => s + (w ?? 0), 0) + 2 * 3;
    expect(all).toBe(80);
  });

  it('a short free column keeps its width while a long one gives', () => {
    expect(fitColumns([col(10), col(8, { shrink: true }), col(200, { shrink: true })], 60)).toEqual(
      [10, 8, 38],
    );
  });

  it('when shortening is not enough, droppable columns go, lowest first', () => {
    const cols = [
      col(3),
      col(21),
      col(10, { drop: 3 }),
      col(150, { shrink: true }),
      col(19, { drop: 2 }),
      col(30, { shrink: true, drop: 1 }),
    ];
    const widths = fitColumns(cols, 60);
    expect(widths[5]).toBeNull();
    expect(widths[4]).toBeNull();
    expect(widths[2]).toBe(10);
    expect(
      widths.reduce<number>((s, w) => s + (w ?? 0), 0) +
        2 * (widths.filter((w) => w !== null).length - 1),
    ).toBeLessThanOrEqual(60);
  });

  it('nothing left to give: free text at its floor, the rest as is (the terminal wraps)', () => {
    expect(fitColumns([col(40), col(40), col(50, { shrink: true, header: 8 })], 60)).toEqual([
      40, 40, 10,
    ]);
  });

  it('a column with one value in every row leaves before anything is dropped, lowest drop first; amounts without drop stay', () => {
    // ID, MONTO, TE COBRAMOS (no drop), FECHA (drop 1, differs), ESTADO (drop 3, constant).
    const cols = [
      col(2),
      col(7),
      col(11),
      col(19, { drop: 1 }),
      col(8, { drop: 3, constant: true }),
    ];
    expect(fitColumns(cols, 50)).toEqual([2, 7, 11, 19, null]);
    // Still too wide once the constant one is out: the droppable ones go, the amounts never.
    expect(fitColumns(cols, 30)).toEqual([2, 7, 11, null, null]);
  });
});
