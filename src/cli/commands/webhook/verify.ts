// svc webhook verify: checks a notification's signature offline, over the raw bytes.
// Exit 0 and a one-line summary of the event when valid; exit 7 and the reason when
// not. The body comes from --body FILE or stdin, or the whole request from --request
// FILE (a raw HTTP dump copied from a log).
import { summarize } from '../../../webhooks/events.js';
import { parseRawRequest, RawRequestError } from '../../../webhooks/rawrequest.js';
import { verify } from '../../../webhooks/signature.js';
import type { Context } from '../../context.js';
import { SignatureError, UsageError } from '../../../errors.js';
import { readAll } from '../../stdin.js';
import type { OptionsOf } from '../../define.js';
import { parseTolerance } from '../../parse.js';
import { field, readBody, readFileArg, resolveSecret } from '../../shared/webhook.js';
import type { verifyOptions } from './index.js';

export async function run(
  ctx: Context,
  _args: string[],
  opts: OptionsOf<typeof verifyOptions>,
): Promise<void> {
  const { io } = ctx;
  const tolerance = parseTolerance(opts.tolerance);
  let timestamp = opts.timestamp;
  let signature = opts.signature;
  let headerEvent: string | undefined;
  let body: Buffer;

  if (opts.request !== undefined) {
    if (opts.body !== undefined)
      throw new UsageError('--request ya trae el cuerpo: no se combina con --body');
    const file = opts.request;
    const raw = file === '-' ? await readAll(io.stdin) : readFileArg(file, '--request');
    const secret = await resolveSecret(ctx, opts);
    let parsed;
    try {
      parsed = parseRawRequest(raw);
    } catch (err) {
      if (err instanceof RawRequestError) throw new UsageError(`--request: ${err.message}`);
      throw err;
    }
    for (const w of parsed.warnings) io.err(io.c.yellow(`aviso: ${w}`));
    // Flags win over the dump's headers (to try a corrected value).
    timestamp ??= parsed.headers['x-svc-timestamp'];
    signature ??= parsed.headers['x-svc-signature'];
    headerEvent = parsed.headers['x-svc-event'];
    body = parsed.body;
    return report(
      ctx,
      verify({ secret, timestamp, signature, body, toleranceSeconds: tolerance }),
      body,
      timestamp,
      headerEvent,
    );
  }
  if (timestamp === undefined || signature === undefined) {
    const missing = [
      timestamp === undefined ? '--timestamp' : '',
      signature === undefined ? '--signature' : '',
    ]
      .filter(Boolean)
      .join(' y ');
    throw new UsageError(
      `falta ${missing} (los valores de X-Svc-Timestamp y X-Svc-Signature), o --request ARCHIVO con el pedido entero`,
    );
  }
  const secret = await resolveSecret(ctx, opts);
  body = await readBody(ctx, opts.body);
  return report(
    ctx,
    verify({ secret, timestamp, signature, body, toleranceSeconds: tolerance }),
    body,
    timestamp,
    headerEvent,
  );
}

function report(
  ctx: Context,
  result: ReturnType<typeof verify>,
  body: Buffer,
  timestamp: string | undefined,
  headerEvent: string | undefined,
): void {
  const { io } = ctx;
  const s = summarize(body, headerEvent);
  if (ctx.globals.json) {
    io.outRaw(
      JSON.stringify(
        {
          valid: result.ok,
          ...(result.ok ? {} : { reason: result.reason, message: result.message }),
          event: s.event,
          cobro_id: s.cobro_id,
          codigo: s.codigo,
          estado: s.estado,
          monto: s.monto,
          monto_cobrado: s.monto_cobrado,
          timestamp: timestamp ?? null,
          bytes: body.length,
        },
        null,
        2,
      ),
    );
  }
  if (!result.ok) {
    const hint =
      result.reason === 'timestamp_too_old' || result.reason === 'timestamp_in_future'
        ? ' (si es un pedido viejo copiado de un log: --tolerance 0)'
        : result.reason === 'signature_mismatch'
          ? ' (¿es el secreto de este perfil? ¿el cuerpo es el crudo, sin reformatear?)'
          : '';
    throw new SignatureError(
      `firma inválida (${result.reason}): ${result.message}${hint}`,
      result.reason,
    );
  }
  if (ctx.globals.json) return;
  const parts = s.json
    ? [
        field(s.event, 40, '(sin evento)'),
        `cobro ${s.cobro_id ?? '-'}`,
        field(s.estado, 40),
        `monto ${field(s.monto, 24)}`,
      ]
    : [field(s.event, 40, 'cuerpo que no es JSON'), `${body.length} bytes`];
  io.out(`${io.c.green('✓ firma válida')}: ${parts.join(' · ')}`);
}
