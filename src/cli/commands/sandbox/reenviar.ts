// svc sandbox reenviar <evento>: POST /_sandbox/eventos/{n}/reenviar. The event goes
// again to the notification URL, signed anew, as new attempts marked `reenvio` (the
// dashboard's "Reenviar" does the same); the request and its events do not change.
import { printJson } from '../../../output/format.js';
import { shown } from '../../../text.js';
import type { Context } from '../../context.js';
import { parseId } from '../../parse.js';
import { SandboxControl } from '../../shared/sandbox-control.js';
import { withNotFoundHint } from '../../shared/show-record.js';

export async function run(ctx: Context, args: string[]): Promise<void> {
  const n = parseId(args[0], 'evento');
  const control = new SandboxControl(await ctx.client({ banner: false }));
  await control.ensureSandbox('svc sandbox reenviar');
  const sent = await withNotFoundHint(
    control.reenviar(n),
    'revisá el número; `svc sandbox entregas` muestra cada evento con el suyo',
  );
  if (ctx.globals.json) return printJson(ctx.io, sent);
  ctx.io.err(
    `${shown(sent.event, 40)} (cobro ${sent.cobro_id}) va de nuevo a ${shown(sent.url, 200)}; \`svc sandbox entregas\` muestra los intentos`,
  );
}
