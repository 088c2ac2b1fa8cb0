// svc sandbox webhook [URL | --borrar]: where a running sandbox sends its notifications
// (GET/POST /_sandbox/webhook), without restarting it with --webhook-url.
import { UsageError } from '../../../errors.js';
import { maskTarget } from '../../../api/address.js';
import { printJson } from '../../../output/format.js';
import { shown } from '../../../text.js';
import type { Context } from '../../context.js';
import type { OptionsOf } from '../../define.js';
import { parseUrl } from '../../parse.js';
import { SandboxControl } from '../../shared/sandbox-control.js';
import type { webhookOptions } from './index.js';

export async function run(
  ctx: Context,
  args: string[],
  opts: OptionsOf<typeof webhookOptions>,
): Promise<void> {
  const given = args[0];
  if (given !== undefined && opts.borrar === true)
    throw new UsageError('una URL o --borrar, no las dos');
  // Checked before any request, as --webhook-url is; `localhost:3000/webhooks` means http://, as --forward-to reads it.
  const url =
    given === undefined
      ? undefined
      : parseUrl(
          /^[a-z][a-z0-9+.-]*:\/\//i.test(given.trim()) ? given : `http://${given.trim()}`,
          'URL',
          'notify',
        );
  const control = new SandboxControl(await ctx.client({ banner: false }));
  await control.ensureSandbox('svc sandbox webhook');
  if (opts.borrar === true) await control.setWebhookUrl(null);
  else if (url !== undefined) await control.setWebhookUrl(url);
  // The sandbox's answer: text from a server, escaped like every other.
  const now = await control.webhookUrl();
  if (ctx.globals.json) return printJson(ctx.io, { url: now });
  const changed = url !== undefined || opts.borrar === true;
  if (now === null)
    ctx.io.err(
      `${changed ? 'listo: el sandbox ya no envía notificaciones' : 'el sandbox no envía notificaciones'} (svc sandbox webhook URL para darle una)`,
    );
  else
    ctx.io.err(
      `${changed ? 'listo: el sandbox ahora envía' : 'el sandbox envía'} las notificaciones a ${shown(maskTarget(now), 200)}`,
    );
}
