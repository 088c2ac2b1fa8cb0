// svc liquidaciones conciliar: a bank statement (CSV as banks and spreadsheets write it)
// against the settlements a real sandbox estimated, day by day; and the pure pieces
// (amounts as banks write them, dates, business days, the CSV reader) as matrices.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Liquidacion } from '../../src/api/schemas.js';
import {
  addBusinessDays,
  businessDayFrom,
  businessDaysBetween,
  decimalMark,
  parseStatementDate,
  parseWrittenAmount,
  reconcile,
} from '../../src/domain/extracto.js';
import { nationalHolidays, yearsOf } from '../../src/domain/holidays.js';
import { parseCsvText } from '../../src/cli/shared/csv.js';
import { tempDir } from '../helpers/cli.js';
import { startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';
import { svc } from '../helpers/inproc.js';

describe('amounts, dates and business days as a bank writes them', () => {
  it.each([
    ['1.234,56', ',', 123456n],
    ['1234,5', ',', 123450n],
    ['-500,00', ',', -50000n],
    ['$ 1.500', ',', 150000n],
    ['(12,00)', ',', -1200n],
    ['12,00-', ',', -1200n],
    ['1,234.56', '.', 123456n],
    ['1 234,56', ',', 123456n],
    ['+0.10', '.', 10n],
    ['12.345,00', ',', 1234500n],
    ['-$ 1.200,00', ',', -120000n],
    ['1.500,00 $', ',', 150000n],
    ['1.500 ARS', ',', 150000n],
    ['$ U$S 12,00', ',', 1200n],
    // A fixed-width export pads its amounts with zeros.
    ['000000150000,00', ',', 15000000n],
    ['00,50', ',', 50n],
  ] as const)('%s with decimal %s is %s cents', (text, mark, cents) => {
    expect(parseWrittenAmount(text, mark)).toBe(cents);
  });

  it.each([
    ['1.23,45', ','],
    ['12,345', ','],
    ['1,2,3', ','],
    ['abc', '.'],
    ['', ','],
    ['1.2.3', '.'],
    ['1e3', '.'],
    // Two numbers run together around a currency sign are not one amount.
    ['100 $ 20', ','],
    // Thousands marks only between groups of exactly three, after a first group of one to three.
    ['1234.567,00', ','],
    ['1.234.56,00', ','],
    ['1.1234,00', ','],
  ] as const)('%s with decimal %s is no amount', (text, mark) => {
    expect(parseWrittenAmount(text, mark)).toBeUndefined();
  });

  it('the decimal mark is read from the whole column; a column that mixes both is refused', () => {
    expect(decimalMark(['1.500', '200'], ',')).toBe(',');
    expect(decimalMark(['1.500,00', '200'], ',')).toBe(',');
    expect(decimalMark(['1500.00', '1,500.00'], ',')).toBe('.');
    expect(decimalMark(['1500', '200'], ';')).toBe(',');
    expect(decimalMark(['1500', '200'], ',')).toBe('.');
    expect(decimalMark(['1,50', '2.50'], ',')).toBeUndefined();
    // A currency sign or blanks around the digits do not hide a thousands dot.
    expect(decimalMark(['$ 1.500', '200'], ',')).toBe(',');
    // Cents after a dot mean a decimal dot, whatever the separator usually means.
    expect(decimalMark(['1500.00', '200'], ';')).toBe('.');
  });

  it.each([
    // Whole amounts only: a dot or a comma between groups of three is a thousands mark.
    [['12.500'], ',', ','],
    [['1.234.567'], ',', ','],
    [['1,500', '200'], ';', '.'],
    [['12,500'], ';', '.'],
    [['1,234,567'], ';', '.'],
    // Not groups of three: nothing to learn, the separator's usual mark.
    [['1234.567'], ',', '.'],
    [['1.5000'], ',', '.'],
    [['1234,567'], ';', ','],
    [['1,5000'], ';', ','],
  ] as const)(
    'whole amounts %j in a file separated by "%s": decimal mark %s',
    (values, sep, mark) => {
      expect(decimalMark(values, sep)).toBe(mark);
    },
  );

  it('dates: dd/mm/yyyy, dd-mm-yy, ISO with a time; impossible dates are none', () => {
    expect(
      ['25/11/2026', '25-11-26', '2026-11-25', '2026-11-25 10:00:00', '5/1/2026'].map(
        parseStatementDate,
      ),
    ).toEqual(['2026-11-25', '2026-11-25', '2026-11-25', '2026-11-25', '2026-01-05']);
    expect(parseStatementDate('25/11/2026 10:32:00')).toBe('2026-11-25');
    // A year written 0026 is not 1926, and digits around a date make it none.
    for (const text of [
      '31/02/2026',
      '11/25/2026',
      'ayer',
      '',
      '25/11/0026',
      '0026-11-25',
      '125/11/2026',
      '2026-11-250',
      '12026-11-25',
    ])
      expect(parseStatementDate(text), text).toBeUndefined();
  });

  it('business days skip the weekend (2026-11-27 is a Friday)', () => {
    expect(addBusinessDays('2026-11-27', 1)).toBe('2026-11-30');
    expect(addBusinessDays('2026-11-28', 0)).toBe('2026-11-30');
    expect(businessDaysBetween('2026-11-27', '2026-11-30')).toBe(1);
    expect(businessDaysBetween('2026-11-26', '2026-11-26')).toBe(0);
  });

  it('a list of closed days longer than a year: the next business day is looked for a year ahead, no further', () => {
    const closed = new Set(
      Array.from({ length: 800 }, (_, i) =>
        new Date(Date.parse('2027-01-01T00:00:00Z') + i * 86_400_000).toISOString().slice(0, 10),
      ),
    );
    expect(businessDayFrom('2027-01-01', closed)).toBe('2028-01-02');
  });

  it("the service's country's national holidays are not business days: a credit the day after one matches, a day later does not", async () => {
    const { country, days } = await nationalHolidays('America/Argentina/Buenos_Aires', [2026]);
    expect(country).toBe('AR');
    // Monday 2026-11-23 (Soberanía Nacional, moved from the 20th) and Tuesday 2026-12-08.
    expect(days.get('2026-11-23')).toMatch(/Soberanía/);
    expect(days.has('2026-12-08')).toBe(true);
    // Christmas Eve is optional (banks open): a business day unless the merchant says not.
    expect(days.has('2026-12-24')).toBe(false);
    const holidays = new Set(days.keys());
    expect(addBusinessDays('2026-11-20', 1, holidays)).toBe('2026-11-24');
    expect(businessDaysBetween('2026-11-20', '2026-11-24', holidays)).toBe(1);
    const expected = [{ fecha: '2026-11-20', cents: 5_000n, liquidaciones: [3] }];
    const period = { desde: '2026-11-16', hasta: '2026-11-30' };
    const judged = (fecha: string, h = holidays) =>
      reconcile(expected, [{ fecha, cents: 5_000n, concepto: '', line: 2 }], period, 1, h)
        .filas.map((f) => `${f.estado}${f.dias_habiles_tarde ? ` +${f.dias_habiles_tarde}` : ''}`)
        .join(' ');
    expect(judged('2026-11-24')).toBe('tarde +1');
    expect(judged('2026-11-25'), 'a day too late').toBe('falta no_esperado');
    expect(judged('2026-11-24', new Set()), 'weekends alone').toBe('falta no_esperado');
    // An expected day that is a holiday is paid on the next business day, on time.
    expect(addBusinessDays('2026-12-08', 0, holidays)).toBe('2026-12-09');
    // A zone no country has: no national holidays, weekends only.
    expect(await nationalHolidays('UTC', [2026])).toEqual({ country: null, days: new Map() });
    expect(yearsOf('2026-11-02', '2026-12-30')).toEqual([2026, 2027]);
  });

  it('one credit serves one day: two days of the same amount need two credits, the earlier day takes it', () => {
    const day = (fecha: string) => ({ fecha, cents: 1000n, liquidaciones: [1] });
    const r = reconcile(
      [day('2026-11-24'), day('2026-11-23')],
      [{ fecha: '2026-11-24', cents: 1000n, concepto: '', line: 2 }],
      { desde: '2026-11-20', hasta: '2026-11-27' },
      1,
    );
    expect(r.filas.map((f) => [f.fecha, f.estado])).toEqual([
      ['2026-11-23', 'tarde'],
      ['2026-11-24', 'falta'],
    ]);
    expect(r.coincide).toBe(false);
    // Three days, one credit in reach of all: the earliest day takes it, whatever their order.
    const three = reconcile(
      [day('2026-11-24'), day('2026-11-23'), day('2026-11-25')],
      [{ fecha: '2026-11-25', cents: 1000n, concepto: '', line: 2 }],
      { desde: '2026-11-20', hasta: '2026-11-30' },
      2,
    );
    expect(three.filas.map((f) => [f.fecha, f.estado])).toEqual([
      ['2026-11-23', 'tarde'],
      ['2026-11-24', 'falta'],
      ['2026-11-25', 'falta'],
    ]);
  });
  it('a credit is a day’s only with exactly its amount, on that day or up to the tolerance later: a day early or a cent off is not', () => {
    // 2026-11-24 is a Tuesday; with 1 business day of tolerance, the 24th or the 25th.
    const expected = [{ fecha: '2026-11-24', cents: 150_000n, liquidaciones: [7] }];
    const period = { desde: '2026-11-20', hasta: '2026-11-30' };
    const judged = (fecha: string, cents: bigint) => {
      const r = reconcile(expected, [{ fecha, cents, concepto: 'LIQ', line: 2 }], period, 1);
      return [r.filas.map((f) => f.estado).join(' '), r.coincide];
    };
    expect(judged('2026-11-24', 150_000n)).toEqual(['coincide', true]);
    expect(judged('2026-11-25', 150_000n)).toEqual(['tarde', true]);
    expect(judged('2026-11-23', 150_000n), 'a day early').toEqual(['no_esperado falta', false]);
    expect(judged('2026-11-26', 150_000n), 'past the tolerance').toEqual([
      'falta no_esperado',
      false,
    ]);
    expect(judged('2026-11-24', 149_999n), 'a cent short').toEqual(['falta no_esperado', false]);
    expect(judged('2026-11-24', 150_001n), 'a cent over').toEqual(['falta no_esperado', false]);
  });

  it('a statement as a bank exports it, newest first: the earliest credit of the amount is the day’s; rows by date, then by line; the totals', () => {
    // Friday 2026-11-20 to Friday 2026-11-27, one business day of tolerance.
    const period = { desde: '2026-11-20', hasta: '2026-11-27' };
    const day = (fecha: string, cents: bigint, id: number) => ({
      fecha,
      cents,
      liquidaciones: [id],
    });
    const credit = (fecha: string, cents: bigint, line: number) => ({
      fecha,
      cents,
      concepto: `linea ${line}`,
      line,
    });
    const expected = [
      day('2026-11-27', 50_000n, 6), // its last day is Monday the 30th, after the statement
      day('2026-11-26', 40_000n, 5), // its last day is the statement's last: missing
      day('2026-11-24', 30_000n, 4),
      day('2026-11-23', 20_000n, 3),
      day('2026-11-19', 10_000n, 2), // paid on the statement's first day, a day late
      day('2026-11-18', 9_900n, 1), // its last day is before the statement: not judged
      day('2026-11-30', 7_700n, 7), // after the statement: not judged
    ];
    // Neither in date order nor in line order (nor the reverse of either).
    const credits = [
      credit('2026-11-20', 10_000n, 2),
      credit('2026-11-20', 10_000n, 5),
      credit('2026-11-20', 10_000n, 8),
      credit('2026-11-23', 20_000n, 9),
      credit('2026-11-24', 20_000n, 6),
      credit('2026-11-23', 500n, 3),
      credit('2026-11-24', 700n, 4),
    ];
    const r = reconcile(expected, credits, period, 1);
    expect(r.filas.map((f) => [f.fecha, f.estado, f.esperado, f.recibido, f.linea])).toEqual([
      ['2026-11-19', 'tarde', '100.00', '100.00', 2],
      ['2026-11-20', 'no_esperado', null, '100.00', 5],
      ['2026-11-20', 'no_esperado', null, '100.00', 8],
      ['2026-11-23', 'no_esperado', null, '5.00', 3],
      ['2026-11-23', 'coincide', '200.00', '200.00', 9],
      ['2026-11-24', 'falta', '300.00', null, null],
      ['2026-11-24', 'no_esperado', null, '7.00', 4],
      ['2026-11-24', 'no_esperado', null, '200.00', 6],
      ['2026-11-26', 'falta', '400.00', null, null],
      ['2026-11-27', 'pendiente', '500.00', null, null],
    ]);
    expect(r.totales).toEqual({
      esperado: '1500.00',
      recibido: '712.00',
      faltante: '700.00',
      no_esperado: '412.00',
    });
    expect([r.fuera_del_periodo, r.coincide]).toEqual([2, false]);
  });

  it('a day before the statement with no credit in it may have been paid before: not judged; a day still within its tolerance at the end is pendiente, not a mismatch', () => {
    const period = { desde: '2026-11-20', hasta: '2026-11-27' };
    const before = reconcile(
      [{ fecha: '2026-11-19', cents: 10_000n, liquidaciones: [1] }],
      [],
      period,
      1,
    );
    expect([before.filas, before.fuera_del_periodo, before.coincide]).toEqual([[], 1, true]);
    const r = reconcile(
      [
        { fecha: '2026-11-26', cents: 10_000n, liquidaciones: [1] },
        { fecha: '2026-11-27', cents: 20_000n, liquidaciones: [2] },
      ],
      [{ fecha: '2026-11-26', cents: 10_000n, concepto: '', line: 2 }],
      period,
      1,
    );
    expect(r.filas.map((f) => f.estado)).toEqual(['coincide', 'pendiente']);
    expect([r.coincide, r.totales.esperado, r.totales.faltante]).toEqual([true, '300.00', '0.00']);
  });
});

describe('the CSV reader', () => {
  it('a BOM, CRLF, ";" detected, a quoted field with the separator and a newline; each row knows its line', () => {
    const f = parseCsvText(
      '\uFEFFFecha;Concepto;Crédito\r\n01/11/2026;"Pago; con\r\ndos líneas";1.000,00\r\n\r\n02/11/2026;Otro;5,00\r\n',
    );
    expect(f.separator).toBe(';');
    expect(f.header).toEqual(['Fecha', 'Concepto', 'Crédito']);
    expect(f.rows.map((r) => [r.line, r.cells.Concepto])).toEqual([
      [2, 'Pago; con\ndos líneas'],
      [5, 'Otro'],
    ]);
  });

  it('a row with another number of columns, or quotes left open: refused naming the line, nothing read', () => {
    expect(() => parseCsvText('a,b\n1,2\n3\n', { what: 'el extracto', path: 'x.csv' })).toThrow(
      'el extracto x.csv, línea 3: tiene otra cantidad de columnas que el encabezado; no se usó nada del archivo',
    );
    expect(() => parseCsvText('a;b\n1;"2\n')).toThrow(/línea 2: abre comillas que no cierra/);
    expect(() => parseCsvText('a;a\n1;2\n')).toThrow(/la columna "a" está dos veces/);
  });
});

describe('svc liquidaciones conciliar against a sandbox', () => {
  let sb: InProcessSandbox;
  let days: { fecha: string; te_queda: string; ids: number[] }[];
  const dir = tempDir('svc-extracto-');
  const toComma = (amount: string) => {
    const [whole, frac] = amount.split('.');
    return `${whole!.replace(/\B(?=(\d{3})+(?!\d))/g, '.')},${frac}`;
  };
  /** A statement as a bank's home banking exports it: ";" separated, dd/mm/yyyy, decimal comma, Windows-1252, CRLF. */
  const nacion = (rows: [string, string, string][]) => {
    const dmy = (iso: string) => iso.split('-').reverse().join('/');
    const first = days[0]!.fecha;
    const text = [
      'Fecha;Descripción;Débito;Crédito;Saldo',
      `${dmy(first)};Comisión mantenimiento;1.200,00;;0,00`,
      ...rows.map(([d, desc, amount]) => `${dmy(d)};${desc};;${toComma(amount)};0,00`),
    ].join('\r\n');
    const path = join(dir, `nacion-${Math.random().toString(36).slice(2)}.csv`);
    writeFileSync(path, Buffer.from(`${text}\r\n`, 'latin1'));
    return path;
  };
  /** The same as a spreadsheet of another bank writes it: "," separated, ISO dates, one signed amount column. */
  const galicia = (rows: [string, string, string][], extraLast?: string) => {
    const lines = [
      'Date,Description,Amount',
      `${days[0]!.fecha},"Comisión, mantenimiento",-12.00`,
      ...rows.map(([d, desc, amount]) => `${d},"${desc}",${amount}`),
      ...(extraLast ? [`${extraLast},"Transferencia a proveedor, factura 12",-350.00`] : []),
    ];
    const path = join(dir, `galicia-${Math.random().toString(36).slice(2)}.csv`);
    writeFileSync(path, `\uFEFF${lines.join('\n')}\n`);
    return path;
  };

  beforeAll(async () => {
    sb = await startSandbox();
    for (const [monto, medio] of [
      ['1500.00', 'qr'],
      ['2000.50', 'debito'],
      ['3000.00', 'credito'],
      ['800.00', 'transferencia'],
    ] as const) {
      const id = (await sb.api('POST', '/v1/cobros', { concepto: 'Para conciliar', monto })).body
        .data.id;
      expect((await sb.api('POST', `/_sandbox/cobros/${id}/pagar`, { medio })).status).toBe(200);
    }
    const all = (await sb.api('GET', '/v1/liquidaciones')).body.data as Liquidacion[];
    const byDay = new Map<string, { fecha: string; cents: bigint; ids: number[] }>();
    for (const l of all) {
      const fecha = l.fecha_estimada.slice(0, 10);
      const d = byDay.get(fecha) ?? { fecha, cents: 0n, ids: [] };
      d.cents += BigInt(l.te_queda.replace('.', ''));
      d.ids.push(l.id);
      byDay.set(fecha, d);
    }
    days = [...byDay.values()]
      .sort((a, b) => (a.fecha < b.fecha ? -1 : 1))
      .map((d) => ({
        fecha: d.fecha,
        te_queda: `${d.cents / 100n}.${String(d.cents % 100n).padStart(2, '0')}`,
        ids: d.ids.sort((a, b) => a - b),
      }));
    expect(days.length).toBeGreaterThan(1);
  });
  afterAll(() => sb?.close());

  const credited = () =>
    days.map(
      (d) =>
        [d.fecha, `Acreditación liquidación ${d.fecha}`, d.te_queda] as [string, string, string],
    );

  it('a statement that matches exactly, in either bank format: every day coincide, exit 0', async () => {
    for (const path of [nacion(credited()), galicia(credited(), days.at(-1)!.fecha)]) {
      const r = await svc(['liquidaciones', 'conciliar', path, '--json'], { env: sb.env });
      expect(r.exitCode, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout) as {
        filas: { fecha: string; estado: string; esperado: string; liquidaciones: number[] }[];
        coincide: boolean;
      };
      expect(out.filas.map((f) => [f.fecha, f.estado, f.esperado, f.liquidaciones])).toEqual(
        days.map((d) => [d.fecha, 'coincide', d.te_queda, d.ids]),
      );
      expect(out.coincide).toBe(true);
    }
  });

  it('one settlement missing: named with its amount and settlements, exit 1 (mismatch)', async () => {
    const missing = days[0]!;
    const rows = credited().slice(1);
    // The statement still covers the missing day: it begins with a debit on that day.
    const path = nacion(rows);
    const r = await svc(['liquidaciones', 'conciliar', path], { env: sb.env });
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(
      new RegExp(
        `${missing.fecha}\\tFALTA\\t${missing.te_queda.replace('.', '\\.')}\\t\\tliquidaciones ${missing.ids.join(', ')}`,
      ),
    );
    expect(r.stderr).toContain(
      `error: el extracto no coincide con las liquidaciones estimadas: faltan ${missing.te_queda}, llegaron sin esperarse 0.00`,
    );
    const json = await svc(['--json', 'liquidaciones', 'conciliar', path], { env: sb.env });
    expect(JSON.parse(json.stderr.trim()).error).toBe('mismatch');
  });

  it('a day late: with --tolerancia 1d it matched late; without, it is missing and the credit unexpected', async () => {
    const late = days[0]!;
    const next = addBusinessDays(late.fecha, 1);
    const rows = credited().map(
      ([d, desc, amount], i) => [i === 0 ? next : d, desc, amount] as [string, string, string],
    );
    const path = galicia(rows, days.at(-1)!.fecha);
    const tolerant = await svc(
      ['liquidaciones', 'conciliar', path, '--tolerancia', '1d', '--json'],
      { env: sb.env },
    );
    expect(tolerant.exitCode, tolerant.stderr).toBe(0);
    expect(JSON.parse(tolerant.stdout).filas[0]).toMatchObject({
      fecha: late.fecha,
      estado: 'tarde',
      fecha_recibido: next,
      dias_habiles_tarde: 1,
    });
    const strict = await svc(['liquidaciones', 'conciliar', path, '--json'], { env: sb.env });
    expect(strict.exitCode).toBe(1);
    const estados = (JSON.parse(strict.stdout).filas as { fecha: string; estado: string }[])
      .filter((f) => f.estado !== 'coincide')
      .map((f) => [f.fecha, f.estado]);
    expect(estados).toEqual(
      [
        [late.fecha, 'falta'],
        [next, 'no_esperado'],
      ].sort((a, b) => (a[0]! < b[0]! ? -1 : 1)),
    );
  });

  it('a credit a day before its day, or a cent off, is not that day’s: never coincide, exit 1', async () => {
    const first = days[0]!;
    const cents = BigInt(first.te_queda.replace('.', ''));
    const money = (c: bigint) => `${c / 100n}.${String(c % 100n).padStart(2, '0')}`;
    const dayBefore = new Date(Date.parse(`${first.fecha}T00:00:00Z`) - 86_400_000)
      .toISOString()
      .slice(0, 10);
    for (const [why, fecha, amount] of [
      ['a day early', dayBefore, first.te_queda],
      ['a cent short', first.fecha, money(cents - 1n)],
      ['a cent over', first.fecha, money(cents + 1n)],
    ] as const) {
      const rows = credited().map(
        ([d, desc, a], i) =>
          (i === 0 ? [fecha, desc, amount] : [d, desc, a]) as [string, string, string],
      );
      const r = await svc(
        [
          'liquidaciones',
          'conciliar',
          galicia(rows, days.at(-1)!.fecha),
          '--tolerancia',
          '2d',
          '--json',
        ],
        { env: sb.env },
      );
      expect(r.exitCode, `${why}: ${r.stderr}`).toBe(1);
      const out = JSON.parse(r.stdout) as {
        filas: {
          fecha: string;
          estado: string;
          esperado: string | null;
          recibido: string | null;
          fecha_recibido: string | null;
        }[];
        coincide: boolean;
      };
      expect(out.coincide, why).toBe(false);
      const day = out.filas.find((f) => f.fecha === first.fecha && f.esperado !== null)!;
      expect(['falta', 'pendiente'], `${why}: ${JSON.stringify(day)}`).toContain(day.estado);
      expect(
        out.filas
          .filter((f) => f.estado === 'no_esperado')
          .map((f) => [f.fecha_recibido, f.recibido]),
        why,
      ).toEqual([[fecha, amount]]);
    }
  });

  it('--feriados: a day the bank did not credit is not a business day; a credit a day later still is not that day’s', async () => {
    const first = days[0]!;
    const years = yearsOf(first.fecha, first.fecha);
    const national = new Set(
      (await nationalHolidays('America/Argentina/Buenos_Aires', years)).days.keys(),
    );
    const closed = addBusinessDays(first.fecha, 1, national);
    const withClosed = new Set([...national, closed]);
    const after = addBusinessDays(first.fecha, 1, withClosed);
    const tooLate = addBusinessDays(first.fecha, 2, withClosed);
    const statement = (fecha: string) =>
      galicia(
        credited().map(
          ([d, desc, a], i) => [i === 0 ? fecha : d, desc, a] as [string, string, string],
        ),
        tooLate,
      );
    const run = (path: string, ...extra: string[]) =>
      svc(['liquidaciones', 'conciliar', path, '--tolerancia', '1d', '--json', ...extra], {
        env: sb.env,
      });
    const ok = await run(statement(after), '--feriados', closed);
    expect(ok.exitCode, ok.stderr).toBe(0);
    const out = JSON.parse(ok.stdout);
    expect(out.filas[0]).toMatchObject({
      fecha: first.fecha,
      estado: 'tarde',
      fecha_recibido: after,
      dias_habiles_tarde: 1,
    });
    expect(out.feriados).toContainEqual({ fecha: closed, nombre: 'feriado tuyo' });
    // Without it the bank's closed day counts: two business days late, past the tolerance.
    expect((await run(statement(after))).exitCode).toBe(1);
    const late = await run(statement(tooLate), '--feriados', `${closed},2099-01-01`);
    expect(late.exitCode).toBe(1);
    expect(JSON.parse(late.stdout).filas[0]).toMatchObject({ fecha: first.fecha, estado: 'falta' });
    const bad = await run(statement(after), '--feriados', 'navidad');
    expect([bad.exitCode, JSON.parse(bad.stderr).message]).toEqual([
      2,
      '--feriados "navidad" no es una fecha: AAAA-MM-DD o dd/mm/aaaa, separadas por coma',
    ]);
  });

  it("a credit nobody promised (a customer's transfer) is money received and not expected: exit 1, its line and concept shown", async () => {
    const path = nacion([...credited(), [days[0]!.fecha, 'Transferencia de Juan Pérez', '123.45']]);
    const r = await svc(['liquidaciones', 'conciliar', path, '--csv'], { env: sb.env });
    expect(r.exitCode).toBe(1);
    expect(r.stdout.split('\r\n')[0]).toBe(
      'fecha,estado,esperado,recibido,fecha_recibido,dias_habiles_tarde,liquidaciones,linea,concepto',
    );
    expect(r.stdout).toContain(
      `${days[0]!.fecha},no_esperado,,123.45,${days[0]!.fecha},,[],${days.length + 3},Transferencia de Juan Pérez`,
    );
  });

  it.each([
    ['27 digits', '123456789012345678901234567,00'],
    ['13 whole digits', '1234567890123'],
  ])('an amount of %s is no amount: exit 2 naming its line', async (_n, amount) => {
    const bad = join(dir, 'enorme.csv');
    writeFileSync(bad, `Fecha;Crédito\n${days[0]!.fecha};100,00\n${days[0]!.fecha};${amount}\n`);
    const r = await svc(['liquidaciones', 'conciliar', bad], { env: sb.env });
    expect([r.exitCode, r.stdout, r.stderr.split('\n')[0]]).toEqual([
      2,
      '',
      `error: el extracto ${bad}, línea 3: "${amount}" no es un importe (ej. 1.234,56); no se usó nada del archivo`,
    ]);
  });

  it('a row that cannot be read stops everything, naming its line; an unknown column says which there are', async () => {
    const bad = join(dir, 'malo.csv');
    writeFileSync(bad, `Fecha;Crédito\n${days[0]!.fecha};100,00\nmañana;5,00\n`);
    const r = await svc(['liquidaciones', 'conciliar', bad], { env: sb.env });
    expect([r.exitCode, r.stdout, r.stderr.split('\n')[0]]).toEqual([
      2,
      '',
      `error: el extracto ${bad}, línea 3: "mañana" no es una fecha (dd/mm/aaaa o aaaa-mm-dd); no se usó nada del archivo`,
    ]);
    const cols = join(dir, 'columnas.csv');
    writeFileSync(cols, 'Día,Plata\n2026-11-02,1.00\n');
    const c = await svc(['liquidaciones', 'conciliar', cols], { env: sb.env });
    expect(c.exitCode).toBe(2);
    expect(c.stderr).toContain(
      'no tiene una columna de fecha que svc reconozca (columnas: Día, Plata)\n→ indicala con --columnas fecha=NOMBRE',
    );
    const mapped = await svc(
      ['liquidaciones', 'conciliar', cols, '--columnas', 'fecha=Día,importe=Plata', '--json'],
      { env: sb.env },
    );
    expect(JSON.parse(mapped.stdout).filas.at(-1)).toMatchObject({
      estado: 'no_esperado',
      recibido: '1.00',
    });
  });
});
