// svc transacciones listar: GET /v1/transacciones with medio and estado; --cobro, --desde, --hasta and --limit applied here.
import type { Context } from '../../context.js';
import { inZone } from '../../../domain/dates.js';
import { parseOpenChoice } from '../../parse.js';
import { ESTADOS_TRANSACCION, MEDIOS } from '../../../api/enums.js';
import { eachRow, firstRows, listFilter, readShown, sayLimited } from '../../shared/lists.js';
import { sayInexact } from '../../shared/inexact.js';
import { printJsonItems, printTable } from '../../../output/format.js';
import { transaccionColumns, transaccionFields } from '../../../output/resources.js';
import type { OptionsOf } from '../../define.js';
import type { listarOptions } from './index.js';

const fecha = (t: { fecha: string }) => t.fecha;

export async function run(
  ctx: Context,
  _args: string[],
  opts: OptionsOf<typeof listarOptions>,
): Promise<void> {
  const warn = (line: string) => ctx.io.err(ctx.io.c.yellow(line));
  const medio = parseOpenChoice(opts.medio, MEDIOS, '--medio', warn);
  const estado = parseOpenChoice(opts.estado, ESTADOS_TRANSACCION, '--estado', warn);
  const client = await ctx.client();
  const filter = await listFilter(ctx, client, opts);
  const { data: list } = await ctx.spin('buscando transacciones…', () =>
    client.iterarTransacciones({ medio, estado }, readShown(filter, fecha)),
  );
  const { rows, count, cut } = firstRows(list, filter, fecha);
  if (ctx.globals.json) return printJsonItems(ctx.io, rows);
  const filtered = [opts.medio, opts.estado, opts.cobro, opts.desde, opts.hasta].some(
    (v) => v !== undefined,
  );
  const zone = await ctx.zone();
  await printTable(
    ctx.io,
    transaccionColumns,
    eachRow(rows, (r) => inZone(r, zone)),
    filtered
      ? 'no hay transacciones con esos filtros'
      : 'no hay transacciones todavía: aparecen cuando alguien paga un cobro',
    transaccionFields,
  );
  sayInexact(ctx, rows);
  sayLimited(ctx, rows.length, count, '', cut);
}
