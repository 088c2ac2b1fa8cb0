// svc devoluciones listar: GET /v1/devoluciones; --cobro, --desde, --hasta and --limit applied here.
import type { Context } from '../../context.js';
import { inZone } from '../../../domain/dates.js';
import type { OptionsOf } from '../../define.js';
import { eachRow, firstRows, listFilter, readShown, sayLimited } from '../../shared/lists.js';
import { sayInexact } from '../../shared/inexact.js';
import { printJsonItems, printTable } from '../../../output/format.js';
import { devolucionColumns, devolucionFields } from '../../../output/resources.js';
import type { listarOptions } from './index.js';

const createdAt = (d: { created_at: string }) => d.created_at;

export async function run(
  ctx: Context,
  _args: string[],
  opts: OptionsOf<typeof listarOptions>,
): Promise<void> {
  const client = await ctx.client();
  const filter = await listFilter(ctx, client, opts);
  const { data: list } = await ctx.spin('buscando devoluciones…', () =>
    client.iterarDevoluciones(readShown(filter, createdAt)),
  );
  const { rows, count, cut } = firstRows(list, filter, createdAt);
  if (ctx.globals.json) return printJsonItems(ctx.io, rows);
  const zone = await ctx.zone();
  await printTable(
    ctx.io,
    devolucionColumns,
    eachRow(rows, (r) => inZone(r, zone)),
    filter.cobroId === undefined
      ? 'no hay devoluciones'
      : `el cobro ${filter.cobroId} no tiene devoluciones`,
    devolucionFields,
  );
  sayInexact(ctx, rows);
  sayLimited(ctx, rows.length, count, '', cut);
}
