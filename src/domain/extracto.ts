// A bank statement reconciled with the settlements the service estimated: each day's
// `te_queda` (what reaches the bank, one credit a day as a bank pays it) matched with a
// credit of exactly that amount on that day or up to `tolerance` business days later.
// Pure: the CLI reads the file (cli/shared/csv.ts) and the settlements; amounts are
// integer cents (money.ts) from the first character to the last.
import { formatCents, parseAmount, type Cents } from './money.js';

/** A credit line of the statement. */
export interface Credit {
  fecha: string;
  cents: Cents;
  concepto: string;
  line: number;
}

/** What the service promised for one day. */
export interface Expected {
  fecha: string;
  cents: Cents;
  liquidaciones: number[];
}

export type Estado = 'coincide' | 'tarde' | 'falta' | 'no_esperado' | 'pendiente';

export interface Fila {
  fecha: string;
  estado: Estado;
  esperado: string | null;
  recibido: string | null;
  fecha_recibido: string | null;
  /** Business days between the expected day and the credit. */
  dias_habiles_tarde: number | null;
  liquidaciones: number[];
  linea: number | null;
  concepto: string | null;
}

export interface Conciliacion {
  periodo: { desde: string; hasta: string };
  tolerancia_dias_habiles: number;
  filas: Fila[];
  totales: { esperado: string; recibido: string; faltante: string; no_esperado: string };
  /** Settled days outside the statement's dates: not judged. */
  fuera_del_periodo: number;
  /** True when every judged day matched and no credit was unexpected. */
  coincide: boolean;
}

/** Which decimal mark a column of amounts uses; undefined when the values contradict each other. */
export function decimalMark(values: readonly string[], separator: string): ',' | '.' | undefined {
  const bare = values.map((v) => v.replace(/[^\d.,]/g, '')).filter((v) => v !== '');
  const comma = bare.some((v) => /,\d{1,2}$/.test(v));
  const dot = bare.some((v) => /\.\d{1,2}$/.test(v));
  if (comma && dot) return undefined;
  if (comma) return ',';
  if (dot) return '.';
  // Only whole amounts: "1.500" is a thousands dot; otherwise what a file with `;` usually means.
  if (bare.some((v) => /^\d{1,3}(\.\d{3})+$/.test(v))) return ',';
  if (bare.some((v) => /^\d{1,3}(,\d{3})+$/.test(v))) return '.';
  return separator === ';' ? ',' : '.';
}

/**
 * An amount as a bank writes it ("1.234,56", "-500,00", "$ 1 234,56", "(12,00)", "12,00-"),
 * given the file's decimal mark: signed cents, or undefined when it is not an amount.
 */
export function parseWrittenAmount(text: string, decimal: ',' | '.'): Cents | undefined {
  let t = text
    .replace(/[\s\u00a0\u202f]/g, '')
    .replace(/^(ARS|\$|USD|U\$S)+/i, '')
    .replace(/(ARS|\$)$/i, '');
  let negative = false;
  if (/^\(.*\)$/.test(t)) [negative, t] = [true, t.slice(1, -1)];
  if (t.startsWith('-')) [negative, t] = [true, t.slice(1)];
  else if (t.endsWith('-')) [negative, t] = [true, t.slice(0, -1)];
  else if (t.startsWith('+')) t = t.slice(1);
  t = t.replace(/^(ARS|\$)/i, '');
  const thousands = decimal === ',' ? '.' : ',';
  const [whole = '', frac, extra] = t.split(decimal);
  if (extra !== undefined || whole === '') return undefined;
  const groups = whole.split(thousands);
  // Thousands marks only between groups of three: "1.23,45" is not an amount.
  if (
    groups.length > 1 &&
    (!/^\d{1,3}$/.test(groups[0]!) || groups.slice(1).some((g) => !/^\d{3}$/.test(g)))
  )
    return undefined;
  // Leading zeros dropped; more than twelve whole digits is no amount svc can hold (money.ts).
  const digits = groups.join('').replace(/^0+(?=\d)/, '');
  if (!/^\d{1,12}$/.test(digits) || (frac !== undefined && !/^\d{1,2}$/.test(frac)))
    return undefined;
  const cents = parseAmount(frac === undefined ? digits : `${digits}.${frac}`);
  return negative ? -cents : cents;
}

/** A statement's date ("25/11/2026", "25-11-26", "2026-11-25", with a time or not) as YYYY-MM-DD; undefined when it is none. */
export function parseStatementDate(text: string): string | undefined {
  const t = text.trim();
  let y: number, m: number, d: number;
  let match = /^(\d{4})-(\d{2})-(\d{2})(?:[ T].*)?$/.exec(t);
  if (match) [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])];
  else {
    match = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{2}|\d{4})(?:\s.*)?$/.exec(t);
    if (!match) return undefined;
    [d, m, y] = [Number(match[1]), Number(match[2]), Number(match[3])];
    if (match[3]!.length === 2) y += 2000;
  }
  const date = new Date(Date.UTC(y, m - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d)
    return undefined;
  return date.toISOString().slice(0, 10);
}

const dayMs = 86_400_000;
const weekday = (day: string) => new Date(`${day}T00:00:00Z`).getUTCDay();
/** Days on which no bank credits, besides weekends (`YYYY-MM-DD`): holidays. */
export type Holidays = ReadonlySet<string>;
const NO_HOLIDAYS: Holidays = new Set();
const isBusiness = (day: string, holidays: Holidays) =>
  weekday(day) !== 0 && weekday(day) !== 6 && !holidays.has(day);
/** The calendar day after `day` (`YYYY-MM-DD`). */
export const nextDay = (day: string) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + dayMs).toISOString().slice(0, 10);

/** The first business day on or after `day` (neither a weekend nor one of `holidays`). */
export function businessDayFrom(day: string, holidays: Holidays = NO_HOLIDAYS): string {
  let d = day;
  // Bounded: a year of holidays in a row is a mistake, not a calendar.
  for (let i = 0; i < 366 && !isBusiness(d, holidays); i++) d = nextDay(d);
  return d;
}

/** `n` business days after `day` (a weekend day or holiday counts from the business day after it). */
export function addBusinessDays(day: string, n: number, holidays: Holidays = NO_HOLIDAYS): string {
  let d = businessDayFrom(day, holidays);
  for (let i = 0; i < n; i++) d = businessDayFrom(nextDay(d), holidays);
  return d;
}

/** Business days from `from` (or the business day after it) to `to`: 0 when `to` is that first business day. */
export function businessDaysBetween(
  from: string,
  to: string,
  holidays: Holidays = NO_HOLIDAYS,
): number {
  let d = businessDayFrom(from, holidays);
  let n = 0;
  while (d < to) {
    d = businessDayFrom(nextDay(d), holidays);
    n++;
  }
  return n;
}

/** Matches every expected day with one credit of exactly its amount, within the tolerance. */
export function reconcile(
  expected: readonly Expected[],
  credits: readonly Credit[],
  period: { desde: string; hasta: string },
  tolerance: number,
  holidays: Holidays = NO_HOLIDAYS,
): Conciliacion {
  const free = [...credits].sort((a, b) =>
    a.fecha < b.fecha ? -1 : a.fecha > b.fecha ? 1 : a.line - b.line,
  );
  const used = new Set<Credit>();
  const filas: Fila[] = [];
  let outside = 0;
  // Keys in one order (the CSV's columns): fecha and estado first.
  const row = ({
    fecha,
    estado,
    ...fila
  }: Partial<Fila> & Pick<Fila, 'fecha' | 'estado'>): Fila => ({
    fecha,
    estado,
    esperado: null,
    recibido: null,
    fecha_recibido: null,
    dias_habiles_tarde: null,
    liquidaciones: [],
    linea: null,
    concepto: null,
    ...fila,
  });
  for (const e of [...expected].sort((a, b) => (a.fecha < b.fecha ? -1 : 1))) {
    const last = addBusinessDays(e.fecha, tolerance, holidays);
    if (e.fecha > period.hasta || last < period.desde) {
      outside++;
      continue;
    }
    const credit = free.find(
      (c) => !used.has(c) && c.cents === e.cents && c.fecha >= e.fecha && c.fecha <= last,
    );
    const esperado = formatCents(e.cents);
    if (credit) {
      used.add(credit);
      const late = businessDaysBetween(e.fecha, credit.fecha, holidays);
      filas.push(
        row({
          fecha: e.fecha,
          estado: late === 0 ? 'coincide' : 'tarde',
          esperado,
          recibido: formatCents(credit.cents),
          fecha_recibido: credit.fecha,
          dias_habiles_tarde: late,
          liquidaciones: e.liquidaciones,
          linea: credit.line,
          concepto: credit.concepto,
        }),
      );
    } else if (e.fecha < period.desde) {
      // It may have been paid before the statement begins: nothing to judge it by.
      outside++;
    } else {
      // Still inside its tolerance when the statement ends: not missing yet.
      filas.push(
        row({
          fecha: e.fecha,
          estado: last > period.hasta ? 'pendiente' : 'falta',
          esperado,
          liquidaciones: e.liquidaciones,
        }),
      );
    }
  }
  for (const c of free) {
    if (!used.has(c))
      filas.push(
        row({
          fecha: c.fecha,
          estado: 'no_esperado',
          recibido: formatCents(c.cents),
          fecha_recibido: c.fecha,
          linea: c.line,
          concepto: c.concepto,
        }),
      );
  }
  filas.sort((a, b) =>
    a.fecha < b.fecha ? -1 : a.fecha > b.fecha ? 1 : (a.linea ?? 0) - (b.linea ?? 0),
  );
  const sum = (estado: Estado[], field: 'esperado' | 'recibido') =>
    formatCents(
      filas
        .filter((f) => estado.includes(f.estado) && f[field] !== null)
        .reduce((s, f) => s + parseAmount(f[field]!), 0n),
    );
  return {
    periodo: period,
    tolerancia_dias_habiles: tolerance,
    filas,
    totales: {
      esperado: sum(['coincide', 'tarde', 'falta', 'pendiente'], 'esperado'),
      recibido: sum(['coincide', 'tarde', 'no_esperado'], 'recibido'),
      faltante: sum(['falta'], 'esperado'),
      no_esperado: sum(['no_esperado'], 'recibido'),
    },
    fuera_del_periodo: outside,
    coincide: filas.every(
      (f) => f.estado === 'coincide' || f.estado === 'tarde' || f.estado === 'pendiente',
    ),
  };
}
