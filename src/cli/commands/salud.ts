// svc salud: GET /v1/salud, public, no key.
import type { Context } from '../context.js';
import { printJson, printRecord } from '../../output/format.js';

export async function run(ctx: Context): Promise<number> {
  const client = await ctx.client({ requireKey: false });
  const { data } = await ctx.spin('consultando el servicio…', () => client.salud());
  if (ctx.globals.json) {
    printJson(ctx.io, data);
  } else {
    printRecord(ctx.io, [
      ['ok', String(data.ok), (v, c) => (data.ok ? c.green(v) : c.red(v))],
      ['nombre', data.name],
      ['versión', data.version],
      ['dirección', client.address],
    ]);
  }
  return data.ok ? 0 : 1;
}
