// svc liquidaciones conciliar EXTRACTO.csv: the bank's statement against the settlements
// the service estimated (GET /v1/liquidaciones), day by day: what matched, what arrived
// late, what was expected and did not arrive, what arrived and was not expected. Exit 1
// ("mismatch") when anything differs, so a script can check a month in one call.
import type { Context } from '../../context.js';
import type { OptionsOf } from '../../define.js';
import { CliError, EXIT, UsageError } from '../../../errors.js';
import {
  addBusinessDays,
  decimalMark,
  parseStatementDate,
  parseWrittenAmount,
  reconcile,
  type Credit,
  type Estado,
  type Expected,
  type Fila,
} from '../../../domain/extracto.js';
import { nullable, printJson, printTable, type Column } from '../../../output/format.js';
import { parseAmount } from '../../../domain/money.js';
import { nationalHolidays, yearsOf } from '../../../domain/holidays.js';
import { localDay } from '../../../domain/dates.js';
import { refuseInexact } from '../../../api/exact.js';
import type { Liquidacion } from '../../../api/schemas.js';
import { foldList } from '../../shared/lists.js';
import { count, printable, wrapWords } from '../../../text.js';
import { findColumn, parseSeparator, readCsvFile, type CsvFile } from '../../shared/csv.js';
import type { conciliarOptions } from './index.js';

/** Header names banks and spreadsheets use, tried in order (case and accents ignored). */
const CANDIDATES = {
  fecha: [
    'fecha',
    'fecha valor',
    'fecha operacion',
    'fecha de operacion',
    'fecha movimiento',
    'date',
  ],
  importe: ['credito', 'creditos', 'importe', 'monto', 'haber', 'importe credito', 'amount'],
  concepto: ['concepto', 'descripcion', 'detalle', 'referencia', 'movimiento', 'description'],
} as const;

type Field = keyof typeof CANDIDATES;

const ESTADO_TEXTO: Record<Estado, string> = {
  coincide: 'coincide',
  tarde: 'llegó tarde',
  falta: 'FALTA',
  no_esperado: 'NO ESPERADO',
  pendiente: 'pendiente',
};

const FIELDS: (keyof Fila)[] = [
  'fecha',
  'estado',
  'esperado',
  'recibido',
  'fecha_recibido',
  'dias_habiles_tarde',
  'liquidaciones',
  'linea',
  'concepto',
];

export async function run(
  ctx: Context,
  args: string[],
  opts: OptionsOf<typeof conciliarOptions>,
): Promise<void> {
  const path = args[0]!;
  const columns = parseColumns(opts.columnas);
  const tolerance = parseDays(opts.tolerancia);
  const own = parseHolidays(opts.feriados);
  const file = readCsvFile(path, {
    separator: parseSeparator(opts.separador),
    what: 'el extracto',
    encoding: 'auto',
  });
  const names = Object.fromEntries(
    (Object.keys(CANDIDATES) as Field[]).map((f) => [
      f,
      findColumn(file, CANDIDATES[f], columns[f]),
    ]),
  ) as Record<Field, string | undefined>;
  for (const f of ['fecha', 'importe'] as const) {
    if (!names[f]) {
      const asked = columns[f]
        ? `no tiene la columna "${printable(columns[f])}"`
        : `no tiene una columna de ${f} que svc reconozca`;
      throw new UsageError(
        `el extracto ${printable(path)} ${asked} (columnas: ${file.header.map((h) => printable(h)).join(', ')})`,
        `indicala con --columnas ${f}=NOMBRE`,
      );
    }
  }
  const { credits, period } = creditsOf(
    file,
    path,
    names as Record<'fecha' | 'importe', string> & { concepto?: string },
  );

  const zone = await ctx.zone();
  const national = await nationalHolidays(zone, yearsOf(period.desde, period.hasta));
  if (national.country === null)
    ctx.io.err(
      ctx.io.c.yellow(
        `aviso: la zona ${zone} no es de un país con calendario de feriados conocido: se saltean fines de semana${own.size ? ' y --feriados' : ''}`,
      ),
    );
  const closed = new Map([...national.days, ...[...own].map((d) => [d, 'feriado tuyo'] as const)]);
  const client = await ctx.client();
  const holidays = new Set(closed.keys());
  // One pass: each settlement is added to its day as it arrives and let go; only the
  // days the statement judges keep their settlements' ids (the rest are only counted).
  const judged = (day: string) =>
    day <= period.hasta && addBusinessDays(day, tolerance, holidays) >= period.desde;
  const { tally, inexact } = await ctx.spin('leyendo liquidaciones…', () =>
    foldList<Liquidacion, ExpectedDays>(
      (read) => client.iterarLiquidaciones(read),
      {},
      (l) => l.fecha_estimada,
      { tally: () => new ExpectedDays(zone, judged), add: (t, l) => t.add(l), showRows: false },
    ),
  );
  refuseInexact(inexact, 'los días que el servicio espera pagar');
  const result = reconcile(tally.days(), credits, period, tolerance, holidays);
  // The holidays that moved a day inside the statement's dates: the rows they explain.
  const feriados = [...closed]
    .filter(([d]) => d >= period.desde && d <= period.hasta && !isWeekend(d))
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([fecha, nombre]) => ({ fecha, nombre }));

  if (ctx.globals.json) printJson(ctx.io, { ...result, feriados });
  else {
    const { c } = ctx.io;
    const cols: Column<Fila>[] = [
      { header: 'FECHA', value: (r) => r.fecha },
      {
        header: 'ESTADO',
        value: (r) => ESTADO_TEXTO[r.estado],
        style: (t, r) =>
          r.estado === 'falta' || r.estado === 'no_esperado'
            ? c.red(t)
            : r.estado === 'pendiente'
              ? c.yellow(t)
              : c.green(t),
      },
      { header: 'ESPERADO', value: (r) => nullable(r.esperado), align: 'right' },
      { header: 'RECIBIDO', value: (r) => nullable(r.recibido), align: 'right' },
      { header: 'DETALLE', value: detail },
    ];
    await printTable(
      ctx.io,
      cols,
      result.filas,
      `el extracto (${result.periodo.desde} a ${result.periodo.hasta}) no tiene créditos ni días con liquidaciones estimadas`,
      FIELDS,
    );
    const by = (e: Estado) => result.filas.filter((f) => f.estado === e).length;
    const parts = [
      `${count(by('coincide') + by('tarde'), 'día coincide', 'días coinciden')}${by('tarde') ? ` (${by('tarde')} tarde)` : ''}`,
      ...(by('falta')
        ? [`${count(by('falta'), 'día falta', 'días faltan')} (${result.totales.faltante})`]
        : []),
      ...(by('no_esperado')
        ? [
            `${count(by('no_esperado'), 'crédito no esperado', 'créditos no esperados')} (${result.totales.no_esperado})`,
          ]
        : []),
      ...(by('pendiente')
        ? [`${by('pendiente')} pendiente${by('pendiente') === 1 ? '' : 's'} de tolerancia`]
        : []),
      ...(result.fuera_del_periodo
        ? [
            `${count(result.fuera_del_periodo, 'día estimado fuera del extracto', 'días estimados fuera del extracto')}`,
          ]
        : []),
    ];
    const summary = `del ${result.periodo.desde} al ${result.periodo.hasta}: ${parts.join(', ')}`;
    if (feriados.length)
      ctx.io.err(
        c.dim(
          `días hábiles sin contar ${feriados.length === 1 ? 'el feriado' : 'los feriados'} ${feriados.map((f) => `${f.fecha} (${f.nombre})`).join(', ')}`,
        ),
      );
    if (ctx.io.stdoutTTY && !ctx.io.csv)
      for (const line of wrapWords(summary, ctx.io.columns ?? Infinity)) ctx.io.out(c.bold(line));
    else ctx.io.err(summary);
  }
  if (!result.coincide) {
    throw new CliError(
      `el extracto no coincide con las liquidaciones estimadas: faltan ${result.totales.faltante}, llegaron sin esperarse ${result.totales.no_esperado}`,
      {
        exit: EXIT.refused,
        code: 'mismatch',
        hint: 'svc liquidaciones --por-fecha muestra lo estimado por día; --tolerancia 2d acepta créditos que llegan hasta dos días hábiles después',
      },
    );
  }
}

function detail(r: Fila): string {
  const settled = r.liquidaciones.length ? `liquidaciones ${r.liquidaciones.join(', ')}` : '';
  if (r.estado === 'tarde')
    return `llegó el ${r.fecha_recibido} (+${count(r.dias_habiles_tarde!, 'día hábil', 'días hábiles')}), línea ${r.linea}; ${settled}`;
  if (r.estado === 'coincide') return `línea ${r.linea}; ${settled}`;
  if (r.estado === 'no_esperado') return `línea ${r.linea}${r.concepto ? `: ${r.concepto}` : ''}`;
  return settled;
}

/** The days the service expects to pay, with the settlements behind each: te_queda summed per fecha_estimada's day in the service's zone. */
/**
 * The settlements totalled by the day they are expected (te_queda, in the service's
 * zone), one at a time: each day's ids are kept only when `judged` (the statement
 * can say something of that day); the others are there to be counted.
 */
class ExpectedDays {
  private readonly byDay = new Map<string, Expected & { keep: boolean }>();
  count = 0;

  constructor(
    private readonly timeZone: string,
    private readonly judged: (day: string) => boolean,
  ) {}

  private day(fecha: string): Expected & { keep: boolean } {
    let day = this.byDay.get(fecha);
    if (!day) {
      day = { fecha, cents: 0n, liquidaciones: [], keep: this.judged(fecha) };
      this.byDay.set(fecha, day);
    }
    return day;
  }

  add(r: { id: number; te_queda: string; fecha_estimada: string }): void {
    this.count++;
    const day = this.day(localDay(r.fecha_estimada, this.timeZone));
    day.cents += parseAmount(r.te_queda);
    if (day.keep) day.liquidaciones.push(r.id);
  }

  merge(other: ExpectedDays): void {
    this.count += other.count;
    for (const o of other.byDay.values()) {
      const day = this.day(o.fecha);
      day.cents += o.cents;
      if (day.keep) for (const id of o.liquidaciones) day.liquidaciones.push(id);
    }
  }

  days(): Expected[] {
    return [...this.byDay.values()].map(({ fecha, cents, liquidaciones }) => ({
      fecha,
      cents,
      liquidaciones: liquidaciones.sort((a, b) => a - b),
    }));
  }
}

/** The statement's credits (positive amounts) and the dates it covers; a bad row stops everything, named by its line. */
function creditsOf(
  file: CsvFile,
  path: string,
  names: { fecha: string; importe: string; concepto?: string | undefined },
): { credits: Credit[]; period: { desde: string; hasta: string } } {
  const where = (line: number) => `el extracto ${printable(path)}, línea ${line}`;
  const decimal = decimalMark(
    file.rows.map((r) => r.cells[names.importe] ?? ''),
    file.separator,
  );
  if (!decimal)
    throw new UsageError(
      `el extracto ${printable(path)} mezcla coma y punto decimal en "${printable(names.importe)}": no se puede saber cuánto es cada importe`,
    );
  const credits: Credit[] = [];
  let desde: string | undefined;
  let hasta: string | undefined;
  for (const row of file.rows) {
    const fechaText = row.cells[names.fecha] ?? '';
    const importeText = row.cells[names.importe] ?? '';
    // Lines without a date (a bank's "saldo anterior" or a total) carry no movement.
    if (fechaText === '' && importeText === '') continue;
    const fecha = parseStatementDate(fechaText);
    if (!fecha)
      throw new UsageError(
        `${where(row.line)}: "${printable(fechaText)}" no es una fecha (dd/mm/aaaa o aaaa-mm-dd); no se usó nada del archivo`,
      );
    desde = desde === undefined || fecha < desde ? fecha : desde;
    hasta = hasta === undefined || fecha > hasta ? fecha : hasta;
    // A debit column's empty cell: a movement, but not a credit.
    if (importeText === '') continue;
    const cents = parseWrittenAmount(importeText, decimal);
    if (cents === undefined)
      throw new UsageError(
        `${where(row.line)}: "${printable(importeText)}" no es un importe (ej. ${decimal === ',' ? '1.234,56' : '1,234.56'}); no se usó nada del archivo`,
      );
    if (cents > 0n)
      credits.push({
        fecha,
        cents,
        concepto: names.concepto ? (row.cells[names.concepto] ?? '') : '',
        line: row.line,
      });
  }
  if (desde === undefined || hasta === undefined)
    throw new UsageError(`el extracto ${printable(path)} no tiene movimientos`);
  return { credits, period: { desde, hasta } };
}

/** --columnas fecha=Fecha,importe=Crédito,concepto=Descripción */
function parseColumns(value: string | undefined): Partial<Record<Field, string>> {
  if (value === undefined) return {};
  const out: Partial<Record<Field, string>> = {};
  for (const part of value.split(',')) {
    const m = /^\s*(fecha|importe|concepto)\s*=\s*(.+?)\s*$/.exec(part);
    if (!m)
      throw new UsageError(
        `--columnas "${printable(part)}" no es válido: usá fecha=NOMBRE,importe=NOMBRE,concepto=NOMBRE`,
      );
    out[m[1] as Field] = m[2]!;
  }
  return out;
}

/** --feriados 2026-12-24,31/12/2026 (repeatable): the merchant's own days without credits. */
function parseHolidays(values: readonly string[] | undefined): Set<string> {
  const out = new Set<string>();
  for (const part of (values ?? []).flatMap((v) => v.split(','))) {
    if (part.trim() === '') continue;
    const day = parseStatementDate(part.trim());
    if (!day)
      throw new UsageError(
        `--feriados "${printable(part)}" no es una fecha: AAAA-MM-DD o dd/mm/aaaa, separadas por coma`,
      );
    out.add(day);
  }
  return out;
}

const isWeekend = (day: string) => [0, 6].includes(new Date(`${day}T00:00:00Z`).getUTCDay());

/** --tolerancia: business days, "2d" or "2". */
function parseDays(value: string | undefined): number {
  if (value === undefined) return 0;
  const m = /^\s*(\d{1,2})\s*d?\s*$/.exec(value);
  if (!m)
    throw new UsageError(
      `--tolerancia "${printable(value)}" no es válida: días hábiles, ej. 2d (de 0d a 30d)`,
    );
  const n = Number(m[1]);
  if (n > 30)
    throw new UsageError(`--tolerancia "${printable(value)}" es demasiado: como mucho 30d`);
  return n;
}
