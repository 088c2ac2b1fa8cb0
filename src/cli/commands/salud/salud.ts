// svc salud: GET /v1/salud, public, no key.
import type { Context } from '../../context.js';
import { printJson, printRecord } from '../../../output/format.js';
import { EXIT, Reported } from '../../../errors.js';

export async function run(ctx: Context): Promise<void> {
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
  // The record already says ok: false; the exit code tells a script.
  if (!data.ok) throw new Reported(EXIT.refused);
}
