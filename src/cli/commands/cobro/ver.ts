// svc cobro ver <id|código> | --referencia <texto>: GET /v1/cobros/{id}, or the request
// whose code or reference is exactly the one given (shared/find-cobro.ts); --mostrar-qr
// draws its QR.
import { printJson } from '../../../output/format.js';
import { printCobro } from '../../../output/cobro.js';
import { inZone } from '../../../domain/dates.js';
import type { Context } from '../../context.js';
import type { OptionsOf } from '../../define.js';
import { cobroNamed, parseCobroRef } from '../../shared/find-cobro.js';
import type { verOptions } from './index.js';

export async function run(
  ctx: Context,
  args: string[],
  opts: OptionsOf<typeof verOptions>,
): Promise<void> {
  const ref = parseCobroRef(args[0], opts.referencia);
  const client = await ctx.client();
  const cobro = await cobroNamed(ctx, client, ref);
  if (ctx.globals.json) printJson(ctx.io, cobro);
  // The same record as sync prints, in the same order and forms.
  else printCobro(ctx.io, inZone(cobro, await ctx.zone()));
  // Only draws: a QR not ready yet is waited for with reads, nothing is changed.
  if (opts.mostrarQr === true) {
    // Loaded only when asked: the read path stays light (start-up).
    const { showQr } = await import('../../shared/show-qr.js');
    await showQr(ctx, client, cobro);
  }
}
