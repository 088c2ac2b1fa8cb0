// svc cargos: GET /v1/cargos, the fee percentage of each payment method.
import type { Context } from '../../context.js';
import { openText, printJson, printTable } from '../../../output/format.js';
import { OPEN_FIELDS } from '../../../api/enums.js';
import type { Cargo } from '../../../api/schemas.js';

export async function run(ctx: Context): Promise<void> {
  const client = await ctx.client();
  const { data } = await ctx.spin('leyendo cargos…', () => client.cargos());
  if (ctx.globals.json) return printJson(ctx.io, data.data);
  await printTable<Cargo>(
    ctx.io,
    [
      { header: 'MEDIO', value: (r) => openText(r.medio, OPEN_FIELDS.cargo.medio) },
      { header: 'NOMBRE', value: (r) => r.label },
      { header: 'PORCENTAJE', value: (r) => `${r.porcentaje}`, align: 'right' },
    ],
    data.data,
  );
}
