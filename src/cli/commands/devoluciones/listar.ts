// svc devoluciones listar: GET /v1/devoluciones.
import type { Context } from '../../context.js';
import { printJson, printTable } from '../../../output/format.js';
import { devolucionColumns } from '../../../output/resources.js';

export async function run(ctx: Context): Promise<void> {
  const client = await ctx.client();
  const { data } = await ctx.spin('buscando devoluciones…', () => client.listarDevoluciones());
  if (ctx.globals.json) return printJson(ctx.io, data.data);
  await printTable(ctx.io, devolucionColumns, data.data, 'no hay devoluciones');
}
