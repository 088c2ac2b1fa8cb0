// Property tests of amount handling: strings <-> integer cents, exact sums, half-up
// percentages, and no JavaScript number anywhere on the path.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AmountError,
  MAX_CENTS,
  formatCents,
  normalizeAmount,
  parseAmount,
  parsePositiveAmount,
  percentOf,
  sumAmounts,
} from '../../src/domain/money.js';

const cents = fc.bigInt({ min: 0n, max: MAX_CENTS });
/** Every way a person may write an amount: "15", "15.5", "15.50". */
const amountText = cents.chain((c) => {
  const whole = (c / 100n).toString();
  const frac = (c % 100n).toString().padStart(2, '0');
  const forms = [`${whole}.${frac}`];
  if (frac.endsWith('0')) forms.push(`${whole}.${frac[0]}`);
  if (frac === '00') forms.push(whole);
  return fc.constantFrom(...forms).map((text) => ({ text, cents: c }));
});

describe('money properties', () => {
  it('parse and format round-trip, whatever the written form', () => {
    fc.assert(
      fc.property(amountText, ({ text, cents: c }) => {
        const parsed = parseAmount(text);
        expect(typeof parsed).toBe('bigint');
        expect(parsed).toBe(c);
        expect(parseAmount(formatCents(parsed))).toBe(c);
        expect(normalizeAmount(text)).toBe(formatCents(c));
        expect(formatCents(c)).toMatch(/^(0|[1-9][0-9]*)\.[0-9]{2}$/);
      }),
      { numRuns: 2000 },
    );
  });

  it('formats and parses back every cent value, including values floats cannot hold', () => {
    fc.assert(
      fc.property(cents, (c) => {
        expect(parseAmount(formatCents(c))).toBe(c);
      }),
      { numRuns: 2000 },
    );
    // 0.1 + 0.2 and large values are where floats go wrong
    expect(formatCents(sumAmounts(['0.10', '0.20']))).toBe('0.30');
    expect(formatCents(parseAmount('999999999.99') + parseAmount('0.01'))).toBe('1000000000.00');
    expect(formatCents(parseAmount('90071992547.41'))).toBe('90071992547.41');
  });

  it('sums of many amounts are exact against a BigInt reference built from the digits', () => {
    fc.assert(
      fc.property(fc.array(amountText, { minLength: 0, maxLength: 300 }), (items) => {
        const reference = items.reduce((acc, { text }) => {
          const [w, f = ''] = text.split('.');
          return acc + BigInt(w!) * 100n + BigInt(f.padEnd(2, '0'));
        }, 0n);
        const total = sumAmounts(items.map((i) => i.text));
        expect(total).toBe(reference);
      }),
      { numRuns: 500 },
    );
  });

  it('sum order does not matter (no rounding drift)', () => {
    fc.assert(
      fc.property(fc.array(amountText, { maxLength: 100 }), (items) => {
        const texts = items.map((i) => i.text);
        expect(sumAmounts([...texts].reverse())).toBe(sumAmounts(texts));
      }),
    );
  });

  it('percentOf rounds half-up, checked against an independent digit computation', () => {
    const percent = fc
      .integer({ min: 0, max: 1_000_000 })
      .map((t) => `${Math.floor(t / 10_000)}.${String(t % 10_000).padStart(4, '0')}`);
    fc.assert(
      fc.property(cents, percent, (c, p) => {
        // exact value = c * p / 100 cents; p has 4 decimals -> scale by 10^6
        const [w, f] = p.split('.');
        const scaled = c * (BigInt(w!) * 10_000n + BigInt(f!)); // c * p * 10^4
        const q = scaled / 1_000_000n;
        const r = scaled % 1_000_000n;
        const expected = r * 2n >= 1_000_000n ? q + 1n : q;
        expect(percentOf(c, p)).toBe(expected);
      }),
      { numRuns: 2000 },
    );
    expect(percentOf(5n, '10.0000')).toBe(1n); // 0.5 -> 1
    expect(percentOf(4n, '10.0000')).toBe(0n); // 0.4 -> 0
    expect(percentOf(15n, '10.0000')).toBe(2n); // 1.5 -> 2
  });

  it('refuses what is not a positive decimal with at most two decimals', () => {
    for (const bad of [
      '1e3',
      '-5',
      '1.234',
      '1,5',
      '',
      ' ',
      '0',
      '0.00',
      '+5',
      '.5',
      '5.',
      '01',
      'NaN',
      'Infinity',
      '0x10',
      '１２',
      '1 000',
      '1000000000.00',
    ]) {
      expect(() => parsePositiveAmount(bad), bad).toThrow(AmountError);
    }
    fc.assert(
      fc.property(fc.string(), (s) => {
        if (/^(0|[1-9][0-9]{0,11})(\.[0-9]{1,2})?$/.test(s)) return;
        expect(() => parseAmount(s)).toThrow(AmountError);
      }),
      { numRuns: 2000 },
    );
  });

  it('no float on the path: the money module never calls Number() or parseFloat on an amount', async () => {
    const { readFile } = await import('node:fs/promises');
    const src = await readFile(new URL('../../src/domain/money.ts', import.meta.url), 'utf8');
    const code = src.replace(/\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '');
    expect(code).not.toMatch(
      /\bparseFloat\s*\(|\bNumber\s*\(|\bparseInt\s*\(|\bMath\.|toFixed\s*\(/,
    );
    // and every amount-returning function hands back a bigint or a string
    expect(typeof parseAmount('1.5')).toBe('bigint');
    expect(typeof sumAmounts(['1.5'])).toBe('bigint');
    expect(typeof percentOf(150n, '3.2500')).toBe('bigint');
    expect(typeof formatCents(150n)).toBe('string');
  });

  it('the write commands keep amounts out of JS numbers too', async () => {
    const { readFile } = await import('node:fs/promises');
    for (const file of [
      'src/cli/commands/devolver/devolver.ts',
      'src/cli/commands/cobro/crear.ts',
    ]) {
      const src = await readFile(new URL(`../../${file}`, import.meta.url), 'utf8');
      expect(src, file).not.toMatch(
        /parseFloat|Number\(\s*(opts\.monto|monto|cobro\.|tx\.|d\.monto)/,
      );
    }
  });
});
