// svc sandbox escenario exportar: the running sandbox's state as a scenario
// (src/sandbox/scenario.ts), to start another one from it with --escenario.
import { printJson } from '../../../output/format.js';
import { exportScenario } from '../../../sandbox/scenario.js';
import type { Context } from '../../context.js';
import { parseChoice } from '../../parse.js';
import { SandboxControl } from '../../shared/sandbox-control.js';

export async function run(ctx: Context, args: string[]): Promise<void> {
  parseChoice(args[0], ['exportar'] as const, 'acción');
  const client = await ctx.client();
  await new SandboxControl(client).ensureSandbox('svc sandbox escenario');
  const [c, t, d] = await ctx.spin('leyendo el estado del sandbox…', () => Promise.all([client.listarCobros(), client.listarTransacciones(), client.listarDevoluciones()]));
  printJson(ctx.io, exportScenario(c.data.data, t.data.data, d.data.data));
}
