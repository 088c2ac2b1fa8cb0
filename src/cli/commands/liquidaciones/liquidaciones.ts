// svc liquidaciones: GET /v1/liquidaciones, with exact totals of bruto, te_cobramos and te_queda.
import type { Context } from '../../context.js';
import { printJson, printTable } from '../../../output/format.js';
import { liquidacionColumns } from '../../../output/resources.js';
import { formatCents, sumAmounts } from '../../../money.js';

export async function run(ctx: Context): Promise<void> {
  const client = await ctx.client();
  const { data } = await ctx.spin('leyendo liquidaciones…', () => client.listarLiquidaciones());
  const rows = data.data;
  if (ctx.globals.json) return printJson(ctx.io, rows);
  await printTable(ctx.io, liquidacionColumns, rows, 'no hay liquidaciones estimadas');
  const total = (field: 'bruto' | 'te_cobramos' | 'te_queda') => formatCents(sumAmounts(rows.map((r) => r[field])));
  const line = `total\tbruto ${total('bruto')}\tte_cobramos ${total('te_cobramos')}\tte_queda ${total('te_queda')}\t(${rows.length} liquidaciones)`;
  // Totals are data a script may want, but not a row: stderr when piped keeps the TSV clean.
  if (ctx.io.stdoutTTY) ctx.io.out(ctx.io.c.bold(line.replace(/\t/g, '   ')));
  else ctx.io.err(line);
}
