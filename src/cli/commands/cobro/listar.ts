// svc cobro listar: GET /v1/cobros with estado and q; --limit is applied here.
import type { Context } from '../../context.js';
import { parseLimit, parseOpenChoice } from '../../parse.js';
import { ESTADOS_COBRO } from '../../../api/enums.js';
import { firstItems, printJsonItems, printTable } from '../../../output/format.js';
import { cobroColumns, cobroFields } from '../../../output/resources.js';
import { UsageError } from '../../../errors.js';
import { sayLimited } from '../../shared/lists.js';
import type { OptionsOf } from '../../define.js';
import type { listarOptions } from './index.js';

export async function run(ctx: Context, _args: string[], opts: OptionsOf<typeof listarOptions>): Promise<void> {
  const estado = parseOpenChoice(opts.estado, ESTADOS_COBRO, '--estado', (line) => ctx.io.err(ctx.io.c.yellow(line)));
  const limit = parseLimit(opts.limit);
  const q = opts.q;
  if (q !== undefined && (q.trim() === '' || q.length > 200 || /[\u0000-\u001f\u007f]/.test(q))) {
    throw new UsageError('--q debe tener entre 1 y 200 caracteres, sin caracteres de control');
  }
  const client = await ctx.client();
  const { data: list } = await ctx.spin('buscando cobros…', () => client.iterarCobros({ estado, q }));
  const rows = firstItems(list, limit);
  if (ctx.globals.json) return printJsonItems(ctx.io, rows);
  await printTable(ctx.io, cobroColumns, rows, 'no hay cobros con esos filtros', cobroFields);
  if (limit !== undefined) sayLimited(ctx, Math.min(limit, list.length), list.length);
}
