// svc sandbox escenario exportar: the running sandbox's state as a scenario
// (src/sandbox/scenario.ts), to start another one from it with --escenario: every
// merchant that can collect (the ready test one and the live rehearsal one), with the
// ids and codes of their requests.
import { printJson } from '../../../output/format.js';
import { exportScenario } from '../../../sandbox/scenario.js';
import type { Context } from '../../context.js';
import { parseChoice } from '../../parse.js';
import { SandboxControl } from '../../shared/sandbox-control.js';

export async function run(ctx: Context, args: string[]): Promise<void> {
  parseChoice(args[0], ['exportar'] as const, 'acción');
  const client = await ctx.client({ banner: false });
  const control = new SandboxControl(client);
  await control.ensureSandbox('svc sandbox escenario');
  const merchants = await ctx.spin('leyendo el estado del sandbox…', async () => {
    const [claves, reloj] = await Promise.all([control.claves(), control.reloj()]);
    return {
      // The sandbox's own reading of its clock, in the zone and form of its dates.
      now: reloj.ahora,
      tz: reloj.tz,
      lists: await Promise.all(
        claves
          .filter((k) => k.puede_cobrar)
          .map(async (k) => {
            const own = await ctx.clientFor(client.baseUrl, k.clave);
            const [c, t, d] = await Promise.all([
              own.listarCobros(),
              own.listarTransacciones(),
              own.listarDevoluciones(),
            ]);
            return {
              ensayo: k.modo !== 'test',
              cobros: c.data.data,
              transacciones: t.data.data,
              devoluciones: d.data.data,
            };
          }),
      ),
    };
  });
  printJson(ctx.io, exportScenario(merchants.lists, merchants.now, merchants.tz));
}
