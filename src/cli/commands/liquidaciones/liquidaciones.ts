// svc liquidaciones: GET /v1/liquidaciones, with exact totals of bruto, te_cobramos and
// te_queda; --por-fecha totals them per estimated date (the day the money arrives).
import { settlementTotalsParts } from '../../shared/totals.js';
import type { Context } from '../../context.js';
import type { OptionsOf } from '../../define.js';
import { foldList, listFilter, sayLimited } from '../../shared/lists.js';
import { printJson, printTable, type Column } from '../../../output/format.js';
import { keeping, liquidacionColumns, liquidacionFields } from '../../../output/resources.js';
import { SettlementTally, type PorFecha } from '../../../domain/liquidaciones.js';
import type { Liquidacion } from '../../../api/schemas.js';
import { count, wrapParts } from '../../../text.js';
import { inZone } from '../../../domain/dates.js';
import { refuseInexact } from '../../../api/exact.js';
import { sayInexact } from '../../shared/inexact.js';
import type { liquidacionesOptions } from './index.js';

const porFechaColumns: Column<PorFecha>[] = [
  { header: 'FECHA (EST.)', value: (r) => r.fecha },
  { header: 'LIQUIDACIONES', value: (r) => String(r.liquidaciones), align: 'right' },
  { header: 'BRUTO', value: (r) => r.bruto, align: 'right' },
  { header: 'TE COBRAMOS', value: (r) => r.te_cobramos, align: 'right' },
  { header: 'TE QUEDA', value: (r) => r.te_queda, align: 'right' },
];

const POR_FECHA_FIELDS: (keyof PorFecha)[] = [
  'fecha',
  'liquidaciones',
  'bruto',
  'te_cobramos',
  'te_queda',
];

export async function run(
  ctx: Context,
  _args: string[],
  opts: OptionsOf<typeof liquidacionesOptions>,
): Promise<void> {
  const client = await ctx.client();
  const filter = await listFilter(ctx, client, opts);
  const porDia = opts.porFecha === true;
  const zone = porDia ? await ctx.zone() : undefined;
  // Totals and each day's sums are of every settlement asked for (--cobro, --desde, --hasta); --limit only
  // shortens the rows shown: a total of the first n would be a sum of nothing in particular.
  // One pass: each settlement is added as it arrives, and only the rows shown are kept.
  const {
    rows,
    inexact,
    tally,
    count: of0,
  } = await ctx.spin('leyendo liquidaciones…', () =>
    foldList<Liquidacion, SettlementTally>(
      (read) => client.iterarLiquidaciones(read),
      filter,
      (l) => (opts.por === 'operacion' ? l.fecha_operacion : l.fecha_estimada),
      {
        tally: () => new SettlementTally(porDia, zone),
        add: (t, l) => t.add(l),
        showRows: !porDia,
      },
    ),
  );
  let shown = rows.length;
  let of = of0;
  if (opts.porFecha === true) {
    refuseInexact(inexact, 'las sumas por fecha');
    const allDays = tally.porFecha();
    // The n newest dates (the list's order is earliest first: the n at its end).
    const days =
      filter.limit === undefined
        ? allDays
        : allDays.slice(Math.max(0, allDays.length - filter.limit));
    [shown, of] = [days.length, allDays.length];
    if (ctx.globals.json) return printJson(ctx.io, days);
    await printTable(
      ctx.io,
      porFechaColumns,
      days,
      'no hay liquidaciones estimadas',
      POR_FECHA_FIELDS,
    );
  } else {
    if (ctx.globals.json) return printJson(ctx.io, rows);
    const zone = await ctx.zone();
    await printTable(
      ctx.io,
      // What the list is read for stays on a narrow terminal: when the money arrives, or
      // with --por operacion, when it was earned; a settlement's own id goes first (its
      // transaction and request name it).
      keeping(liquidacionColumns, opts.por === 'operacion' ? 'OPERACIÓN' : 'LLEGA (EST.)').map(
        (c) => (c.header === 'ID' ? { ...c, drop: 0 } : c),
      ),
      rows.map((r) => inZone(r, zone)),
      'no hay liquidaciones estimadas',
      liquidacionFields,
    );
  }
  sayInexact(ctx, rows);
  refuseInexact(inexact, 'el total');
  const sums = tally.totals();
  // Totals are data a script may want, but not a row: stderr when piped keeps the TSV clean,
  // with the field names a script reads; a terminal gets the words `caso` uses.
  if (ctx.io.stdoutTTY && !ctx.io.csv)
    for (const line of wrapParts(
      settlementTotalsParts(sums, tally.count),
      ctx.io.columns ?? Infinity,
      ' ',
    ))
      ctx.io.out(ctx.io.c.bold(line));
  else
    ctx.io.err(
      [
        'total',
        `bruto ${sums.bruto}`,
        `te_cobramos ${sums.te_cobramos}`,
        `te_queda ${sums.te_queda}`,
        `(${count(tally.count, 'liquidación', 'liquidaciones')})`,
      ].join('\t'),
    );
  sayLimited(
    ctx,
    shown,
    of,
    opts.porFecha === true ? ' fechas; los totales son de todas' : '; los totales son de todas',
  );
}
