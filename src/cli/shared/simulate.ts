// Shared body of the payer simulation verbs (`svc sandbox pagar|iniciar|rechazar|expirar`):
// the action on the sandbox the profile or SVC_BASE_URL points at, then the request as it is now.
import { MEDIOS } from '../../api/enums.js';
import { colorState, printJson, printRecord } from '../../output/format.js';
import type { OptionsOf } from '../define.js';
import type { Context } from '../context.js';
import type { pagarOptions } from '../commands/sandbox/index.js';
import { parseChoice, parseId, montoText } from '../parse.js';
import { SandboxControl, type PayerAction, type PayerBody } from './sandbox-control.js';

const DOING: Record<PayerAction, string> = {
  iniciar: 'iniciando el pago',
  pagar: 'pagando',
  rechazar: 'rechazando el pago',
  expirar: 'venciendo',
};

export async function simulate(
  ctx: Context,
  action: PayerAction,
  args: string[],
  opts: OptionsOf<typeof pagarOptions> = {},
): Promise<void> {
  const id = parseId(args[0], 'id del cobro');
  const body: PayerBody = {};
  if (opts.monto !== undefined) body.monto = montoText(opts.monto);
  const medio = parseChoice(opts.medio, MEDIOS, '--medio');
  if (medio) body.medio = medio;
  const control = new SandboxControl(await ctx.client({ banner: false }));
  const cobro = await ctx.spin(`${DOING[action]} el cobro ${id}…`, () =>
    control.act(id, action, body),
  );
  if (ctx.globals.json) return printJson(ctx.io, cobro);
  printRecord(ctx.io, [
    ['id', String(cobro.id)],
    ['codigo', cobro.codigo],
    ['estado', cobro.estado, colorState],
    ['monto', cobro.monto],
    ['monto_cobrado', cobro.monto_cobrado],
  ]);
}
