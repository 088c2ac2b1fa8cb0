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
      // On a terminal as a person reads a fee (0.80 %); piped, the service's number as sent.
      {
        header: 'PORCENTAJE',
        value: (r) => (ctx.io.stdoutTTY ? percent(String(r.porcentaje)) : `${r.porcentaje}`),
        align: 'right',
      },
    ],
    data.data,
  );
}

/** "0.8000" as "0.80 %": two decimals at least, the rest only when not zeros; text only, never a float. */
export function percent(text: string): string {
  const m = /^(\d+)(?:\.(\d*))?$/.exec(text);
  if (!m) return text;
  const decimals = (m[2] ?? '').replace(/0+$/, '').padEnd(2, '0');
  return `${m[1]}.${decimals} %`;
}
