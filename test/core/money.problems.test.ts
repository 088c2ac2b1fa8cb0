// Each refused amount is refused for its own reason, with its own words: the CLI, the
// sandbox and the reply schemas all word their errors from checkAmount's problem, so
// a reason swapped for another (a comma called a syntax error, a huge amount called
// "too many decimals") is a wrong message in three places. Percentages (fees) too.
import { describe, expect, it } from 'vitest';
import {
  AmountError,
  checkAmount,
  formatPercent,
  isAmount,
  minCents,
  parseAmount,
  parsePercent,
  parsePositiveAmount,
  percentOf,
} from '../../src/domain/money.js';

describe('checkAmount: the first problem, exactly', () => {
  it.each([
    [1500, 'number'],
    [null, 'not_string'],
    [undefined, 'not_string'],
    [{}, 'not_string'],
    ['', 'empty'],
    ['   ', 'empty'],
    ['1,5', 'comma'],
    ['-1,5', 'comma'],
    ['-5', 'negative'],
    [' -5', 'negative'],
    ['5-', 'syntax'],
    ['1.234', 'decimals'],
    ['12.3456789', 'decimals'],
    ['x1.234', 'syntax'],
    ['1.234x', 'syntax'],
    ['1.2a4', 'syntax'],
    ['1234567890123', 'too_large'],
    ['1234567890123.5', 'too_large'],
    ['1234567890123.', 'too_large'],
    ['1234567890123.55', 'too_large'],
    ['123456789012.345', 'decimals'],
    ['x1234567890123', 'syntax'],
    ['1234567890123x', 'syntax'],
    ['1234567890123.x', 'syntax'],
    ['1e3', 'syntax'],
    [' 5', 'syntax'],
  ] as [unknown, string][])('%j: %s', (value, problem) => {
    expect(checkAmount(value)).toEqual({ problem });
  });

  it('zero and above the maximum only with positive', () => {
    expect(checkAmount('0', true)).toEqual({ problem: 'zero' });
    expect(checkAmount('0')).toEqual({ cents: 0n });
    expect(checkAmount('999999999.99', true)).toEqual({ cents: 99_999_999_999n });
    expect(checkAmount('1000000000', true)).toEqual({ problem: 'too_large' });
    expect(checkAmount('1000000000')).toEqual({ cents: 100_000_000_000n });
  });
});

describe('the words of each refusal', () => {
  const refusal = (text: unknown, positive = false) => {
    try {
      (positive ? parsePositiveAmount : parseAmount)(text as string);
    } catch (err) {
      expect(err).toBeInstanceOf(AmountError);
      expect((err as AmountError).name).toBe('AmountError');
      return { message: (err as AmountError).message, problem: (err as AmountError).problem };
    }
    throw new Error(`${JSON.stringify(text)} was accepted`);
  };
  it.each([
    [1500, false, 'number', 'el monto debe ser un texto decimal como "1500.00", no un número JSON'],
    [
      null,
      false,
      'not_string',
      'el monto debe ser un texto decimal como "1500.00", no un número JSON',
    ],
    ['', false, 'empty', 'el monto está vacío'],
    ['1,5', false, 'comma', '"1,5" usa coma: el separador decimal es el punto (ej. 1500.50)'],
    ['-5', false, 'negative', '"-5" es negativo: el monto debe ser positivo'],
    ['1.234', false, 'decimals', '"1.234" tiene más de dos decimales'],
    ['1234567890123', false, 'too_large', '"1234567890123" supera el máximo de 999999999.99'],
    ['0', true, 'zero', '"0" es cero: el monto debe ser mayor que 0'],
    ['1e3', false, 'syntax', '"1e3" no es un monto decimal válido (ej. 1500 o 1500.50)'],
  ] as [unknown, boolean, string, string][])('%j', (text, positive, problem, message) => {
    expect(refusal(text, positive)).toEqual({ problem, message });
  });
  it('echoes what was typed escaped and shortened, never raw', () => {
    const { message } = refusal('1,\u001b[2J' + '9'.repeat(40));
    expect(message).not.toContain('\u001b');
    expect(message).toMatch(/^"1,\\u001b\[2J9+…" usa coma/);
  });
});

describe('isAmount', () => {
  it('is true only for a well-formed decimal string', () => {
    expect(isAmount('1500.50')).toBe(true);
    expect(isAmount('0')).toBe(true);
    for (const bad of [1500, null, '1.234', '-5', '1,5', '', ' 5'])
      expect(isAmount(bad), JSON.stringify(bad)).toBe(false);
  });
});

describe('percentages (fees)', () => {
  it.each([
    ['0', 0n],
    ['3', 30_000n],
    ['3.25', 32_500n],
    ['3.2500', 32_500n],
    ['4.39', 43_900n],
    ['0.0001', 1n],
    ['100', 1_000_000n],
    ['999.9999', 9_999_999n],
  ])('parses %s', (text, value) => expect(parsePercent(text)).toBe(value));
  it.each(['', '3.', '.5', '3.12345', '1000', '03', '-1', '3,5', 'x3', '3x'])(
    'refuses %j',
    (text) => {
      expect(() => parsePercent(text)).toThrow(AmountError);
      expect(() => parsePercent(text)).toThrow(`"${text}" no es un porcentaje válido`);
    },
  );
  it('formats with four decimals', () => {
    expect(formatPercent(32_500n)).toBe('3.2500');
    expect(formatPercent(1n)).toBe('0.0001');
    expect(formatPercent(1_000_000n)).toBe('100.0000');
    expect(formatPercent(43_900n)).toBe('4.3900');
    for (const p of ['0.8000', '4.3900', '12.0001']) expect(formatPercent(parsePercent(p))).toBe(p);
  });
  it('percentOf refuses a negative amount and rounds half up to the cent', () => {
    expect(() => percentOf(-1n, '1')).toThrow('percentOf needs a non-negative amount');
    expect(percentOf(0n, '4.39')).toBe(0n);
    expect(percentOf(100000n, '4.39')).toBe(4390n);
    expect(percentOf(50n, '1')).toBe(1n); // 0.5 cent rounds up
    expect(percentOf(49n, '1')).toBe(0n);
  });
});

describe('minCents', () => {
  it('is the smaller of two amounts', () => {
    expect(minCents(1n, 2n)).toBe(1n);
    expect(minCents(2n, 1n)).toBe(1n);
    expect(minCents(5n, 5n)).toBe(5n);
    expect(minCents(-3n, 0n)).toBe(-3n);
  });
});
