// svc sync <id|código> / svc cobro sync …: POST /v1/cobros/{id}/sync with body {}.
// Reads the request first so the refreshed one can be shown with its old -> new state.
// A sync whose answer cannot be read may have changed the state: said so, with how to check.
import { ESTADOS_COBRO, isKnown } from '../../../api/enums.js';
import { shown } from '../../../text.js';
import { colorState, printJson } from '../../../output/format.js';
import { printCobro, type Pair } from '../../../output/cobro.js';
import { inZone } from '../../../domain/dates.js';
import type { Context } from '../../context.js';
import { OutcomeUnknownError } from '../../../errors.js';
import { checkCommandFor, outcomeUnknown, unknownOutcomeReason } from '../../outcome.js';
import { cobroNamed, describeRef, parseCobroRef } from '../../shared/find-cobro.js';
import { showQr } from '../../shared/show-qr.js';
import type { OptionsOf } from '../../define.js';
import type { syncOptions } from './index.js';

export async function run(
  ctx: Context,
  args: string[],
  opts: OptionsOf<typeof syncOptions>,
): Promise<void> {
  const { io } = ctx;
  const ref = parseCobroRef(args[0], opts.referencia, 'svc sync');
  const client = await ctx.client();
  await ctx.guardChange(`sincronizar ${describeRef(ref)}`);
  const before = await cobroNamed(ctx, client, ref);
  const id = before.id;
  const { after } = await ctx.spin(`sincronizando el cobro ${id}…`, async () => {
    try {
      const after = (await client.syncCobro(id)).data.data;
      return { after };
    } catch (err) {
      if (!outcomeUnknown(err)) throw err;
      const check = checkCommandFor(`/v1/cobros/${id}/sync`, ctx.globals);
      throw new OutcomeUnknownError(
        `la sincronización del cobro ${id} puede haberse hecho o no (${unknownOutcomeReason(err)}); mirá el estado antes de repetirla` +
          (ctx.globals.json ? `. Para verificar: ${check}` : ''),
        check,
      );
    }
  });
  const changed = before.estado !== after.estado;
  if (!isKnown(after.estado, ESTADOS_COBRO)) {
    io.err(
      io.c.yellow(
        `aviso: ${shown(after.estado, 40)} es un estado que svc no conoce: se muestra como lo envió el servicio, y svc no decide nada a partir de él`,
      ),
    );
  }
  const transition = `${before.estado} → ${after.estado}`;

  if (ctx.globals.json) {
    printJson(io, after);
    io.err(changed ? `estado: ${transition}` : `estado sin cambios: ${after.estado}`);
  } else if (io.stdoutTTY) {
    io.out(
      changed
        ? `${io.c.bold('estado:')} ${colorState(before.estado, io.c)} → ${colorState(after.estado, io.c)}`
        : io.c.dim(`estado sin cambios: ${after.estado}`),
    );
    io.out();
    printCobro(io, inZone(after, await ctx.zone()));
  } else {
    // Piped: the old state is one more key/value pair, right after estado.
    const extra: Pair[] = [['estado_anterior', before.estado]];
    printCobro(io, inZone(after, await ctx.zone()), { extra });
    io.err(changed ? `estado: ${transition}` : `estado sin cambios: ${after.estado}`);
  }
  if (opts.mostrarQr === true) await showQr(ctx, client, after);
}
