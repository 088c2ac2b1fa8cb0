// Amount parsing and arithmetic: strict decimal strings, integer cents, half-up fees.
import { describe, expect, it } from 'vitest';
import {
  AmountError,
  formatCents,
  normalizeAmount,
  parseAmount,
  parsePositiveAmount,
  parseTypedAmount,
  percentOf,
  sumAmounts,
} from '../../src/domain/money.js';

describe('money', () => {
  it.each([
    ['1500', 150000n],
    ['1500.5', 150050n],
    ['1500.50', 150050n],
    ['0.01', 1n],
    ['0', 0n],
    ['999999999999.99', 99999999999999n],
  ])('parses %s', (text, cents) => expect(parseAmount(text)).toBe(cents));

  it.each([
    '1e3',
    '-5',
    '1.234',
    '1,5',
    '',
    ' ',
    '01',
    '+5',
    '1.',
    '.5',
    '0x10',
    'NaN',
    'Infinity',
    '1 000',
    '١٢',
  ])('refuses %j', (text) => {
    expect(() => parseAmount(text)).toThrow(AmountError);
  });

  it('refuses zero and amounts over the maximum as positive amounts', () => {
    expect(() => parsePositiveAmount('0.00')).toThrow(/cero/);
    expect(() => parsePositiveAmount('1000000000.00')).toThrow(/máximo/);
    expect(parsePositiveAmount('999999999.99')).toBe(99999999999n);
  });

  it('formats with two decimals, and normalises', () => {
    expect(formatCents(0n)).toBe('0.00');
    expect(formatCents(5n)).toBe('0.05');
    expect(formatCents(-150n)).toBe('-1.50');
    expect(normalizeAmount('10.5')).toBe('10.50');
  });

  it('sums exactly where floats would not', () => {
    expect(formatCents(sumAmounts(['0.10', '0.20']))).toBe('0.30');
    expect(formatCents(sumAmounts(Array(1000).fill('0.01')))).toBe('10.00');
  });

  it('computes fees rounded half-up to the cent', () => {
    expect(percentOf(10000n, '3.2500')).toBe(325n); // 100.00 × 3.25 % = 3.25
    expect(percentOf(150n, '3.0000')).toBe(5n); // 1.50 × 3 % = 0.045 -> 0.05
    expect(percentOf(149n, '3.0000')).toBe(4n); // 0.0447 -> 0.04
    expect(percentOf(100n, '0.5000')).toBe(1n); // 0.005 -> 0.01
  });
});

describe('one amount rule for the CLI, the sandbox and the replies', () => {
  it('the sandbox accepts exactly what parsePositiveAmount accepts, with the same cents', async () => {
    const { amount, badWith } = await import('../../src/sandbox/handlers/validate.js');
    const bad = badWith('create_failed');
    const samples = [
      '1',
      '0.01',
      '1500',
      '1500.5',
      '1500.50',
      '999999999.99',
      '99999999999.99',
      '0',
      '0.00',
      '-1',
      ' 1',
      '1 ',
      '1,5',
      '1.005',
      '1e3',
      '',
      '01',
      '1234567890123',
      '+1',
      '١٢',
    ];
    for (const s of samples) {
      let cli: bigint | string;
      let sandbox: bigint | string;
      try {
        cli = parsePositiveAmount(s);
      } catch {
        cli = 'refused';
      }
      try {
        sandbox = amount(s, 'monto', bad);
      } catch {
        sandbox = 'refused';
      }
      expect(sandbox, JSON.stringify(s)).toBe(cli);
    }
  });
});

describe('parseTypedAmount: an amount as a person types it (prompts, checkout, dashboard)', () => {
  it.each<[string, bigint]>([
    ['1500.50', 150050n],
    ['1500,50', 150050n],
    ['1.500,50', 150050n],
    ['1.500,5', 150050n],
    ['600,00', 60000n],
    ['1,5', 150n],
    ['12.5', 1250n],
    ['1.500.000', 150000000n],
    [' $ 12 ', 1200n],
  ])('%s', (typed, cents) => expect(parseTypedAmount(typed)).toBe(cents));

  it('refuses an amount that reads two ways, naming both', () => {
    expect(() => parseTypedAmount('1.500')).toThrow('"1.500" puede ser 1500.00 o 1.50');
    expect(() => parseTypedAmount('1,500')).toThrow('"1,500" puede ser 1500.00 o 1.50');
    expect(() => parseTypedAmount('2.345')).toThrow('"2.345" puede ser 2345.00 o 2.345');
  });

  it.each(['', '0', '0,00', '-5', '1,2,3', '1.50,00', '12,345', 'abc', '1e3', '1,500.50'])(
    'refuses %j',
    (typed) => {
      expect(() => parseTypedAmount(typed)).toThrow(AmountError);
    },
  );
});
