// Shared body of the payer simulation commands: POST /_sandbox/cobros/{id}/<action>
// on the sandbox the profile or SVC_BASE_URL points at, then show the request.
import type { Cobro } from '../../../api/schemas.js';
import { MEDIOS } from '../../../api/enums.js';
import { AmountError, normalizeAmount, parsePositiveAmount } from '../../../money.js';
import { printJson, printRecord, colorState } from '../../../output/format.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { parseChoice, parseId } from '../../parse.js';

export type Action = 'iniciar' | 'pagar' | 'rechazar' | 'expirar';

const DOING: Record<Action, string> = {
  iniciar: 'iniciando el pago',
  pagar: 'pagando',
  rechazar: 'rechazando el pago',
  expirar: 'venciendo',
};

export async function simulate(ctx: Context, action: Action, args: string[], opts: Record<string, unknown>): Promise<void> {
  const id = parseId(args[0], 'id del cobro');
  const body: Record<string, string> = {};
  if (opts.monto !== undefined) {
    try {
      parsePositiveAmount(String(opts.monto));
      body.monto = normalizeAmount(String(opts.monto));
    } catch (err) {
      if (err instanceof AmountError) throw new UsageError(`--monto: ${err.message}`);
      throw err;
    }
  }
  const medio = parseChoice(opts.medio, MEDIOS, '--medio');
  if (medio) body.medio = medio;
  const client = await ctx.client();
  const res = await ctx.spin(`${DOING[action]} el cobro ${id}…`, () =>
    client.request({ method: 'POST', path: `/_sandbox/cobros/${id}/${action}`, body }),
  );
  const cobro = (res.data as { data: Cobro }).data;
  if (ctx.globals.json) return printJson(ctx.io, cobro);
  printRecord(ctx.io, [
    ['id', String(cobro.id)],
    ['codigo', cobro.codigo],
    ['estado', cobro.estado, colorState],
    ['monto', cobro.monto],
    ['monto_cobrado', cobro.monto_cobrado],
  ]);
}
