// svc cuenta: GET /v1/cuenta; says plainly whether the merchant can collect.
import type { Context } from '../../context.js';
import { printJson, printRecord } from '../../../output/format.js';

export async function run(ctx: Context): Promise<void> {
  const client = await ctx.client();
  const { data } = await ctx.spin('leyendo la cuenta…', () => client.cuenta());
  const cuenta = data.data;
  if (ctx.globals.json) return printJson(ctx.io, cuenta);
  printRecord(ctx.io, [
    ['id', String(cuenta.id)],
    ['nombre', cuenta.nombre],
    ['email', cuenta.email],
    [
      'puede_cobrar',
      cuenta.puede_cobrar ? 'sí' : 'no',
      (v, c) => (cuenta.puede_cobrar ? c.green(v) : c.red(v)),
    ],
  ]);
  if (!cuenta.puede_cobrar) {
    ctx.io.err(
      ctx.io.c.yellow(
        'Esta cuenta todavía no puede crear cobros: completá los datos del comercio y el registro en el panel.',
      ),
    );
  }
}
