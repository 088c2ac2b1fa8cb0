// svc devoluciones listar: GET /v1/devoluciones.
import type { Context } from '../../context.js';
import { printJsonItems, printTable } from '../../../output/format.js';
import { devolucionColumns } from '../../../output/resources.js';

export async function run(ctx: Context): Promise<void> {
  const client = await ctx.client();
  const { data: list } = await ctx.spin('buscando devoluciones…', () => client.iterarDevoluciones());
  if (ctx.globals.json) return printJsonItems(ctx.io, list);
  await printTable(ctx.io, devolucionColumns, list, 'no hay devoluciones');
}
