// svc transacciones listar: GET /v1/transacciones with medio and estado.
import type { Context } from '../../context.js';
import { parseChoice } from '../../parse.js';
import { ESTADOS_TRANSACCION, MEDIOS } from '../../../api/enums.js';
import { printJson, printTable } from '../../../output/format.js';
import { transaccionColumns } from '../../../output/resources.js';

export async function run(ctx: Context, _args: string[], opts: Record<string, unknown>): Promise<void> {
  const medio = parseChoice(opts.medio, MEDIOS, '--medio');
  const estado = parseChoice(opts.estado, ESTADOS_TRANSACCION, '--estado');
  const client = await ctx.client();
  const { data } = await ctx.spin('buscando transacciones…', () => client.listarTransacciones({ medio, estado }));
  if (ctx.globals.json) return printJson(ctx.io, data.data);
  await printTable(ctx.io, transaccionColumns, data.data, 'no hay transacciones con esos filtros');
}
