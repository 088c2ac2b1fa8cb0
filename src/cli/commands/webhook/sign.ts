// svc webhook sign: prints the four headers the service would send with a body
// (Content-Type, X-Svc-Event, X-Svc-Timestamp, X-Svc-Signature) as "Name: value"
// lines, ready for curl -H, or as one JSON object with --json.
import { isEvento, summarize } from '../../../webhooks/events.js';
import { notificationHeaders } from '../../../webhooks/signature.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../../errors.js';
import { printable } from '../../parse.js';
import { readBody, resolveSecret } from '../../shared/webhook.js';
import { printJson } from '../../../output/format.js';
import type { OptionsOf } from '../../define.js';
import type { signOptions } from './index.js';

export async function run(
  ctx: Context,
  _args: string[],
  opts: OptionsOf<typeof signOptions>,
): Promise<void> {
  const { io } = ctx;
  let timestamp = Math.floor(Date.now() / 1000).toString();
  if (opts.timestamp !== undefined) {
    timestamp = opts.timestamp.trim();
    if (!/^[0-9]{1,15}$/.test(timestamp))
      throw new UsageError(
        `--timestamp "${printable(timestamp)}" no es válido (segundos Unix, entero)`,
      );
  }
  if (opts.event !== undefined && !isEvento(opts.event)) {
    throw new UsageError(`--event "${printable(opts.event)}" no es un evento del servicio`);
  }
  const secret = await resolveSecret(ctx, opts);
  const body = await readBody(ctx, opts.body);
  const event = opts.event ?? summarize(body).event;
  if (!event)
    throw new UsageError('el cuerpo no es un JSON con "event": indicá el evento con --event');
  if (!isEvento(event))
    io.err(io.c.yellow(`aviso: "${printable(event)}" no es uno de los eventos del servicio`));
  const headers = notificationHeaders(secret, event, body, timestamp);
  if (ctx.globals.json) {
    printJson(io, headers);
    return;
  }
  for (const [name, value] of Object.entries(headers)) io.out(`${name}: ${value}`);
}
