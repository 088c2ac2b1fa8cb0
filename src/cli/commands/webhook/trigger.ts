// svc webhook trigger <event>: builds a realistic body for the event (from a real
// payment request with --cobro and a key), signs it with the secret and POSTs it to
// --forward-to; prints the target's status. Exit 1 when the target answers non-2xx,
// 6 when it cannot be reached. With --sandbox (trigger-sandbox.ts) it drives the real
// state change in `svc sandbox` instead, so the sandbox sends the notification.
import type { Evento } from '../../../api/enums.js';
import { ESTADOS_COBRO, EVENTOS } from '../../../api/enums.js';
import { maskTarget } from '../../../api/address.js';
import { sampleBody, type EventBody } from '../../../webhooks/events.js';
import { notificationHeaders } from '../../../webhooks/signature.js';
import { VERSION } from '../../../version.js';
import { LOCAL_LISTENER_URL } from '../../../defaults.js';
import type { Context } from '../../context.js';
import type { OptionsOf } from '../../define.js';
import { CliError, EXIT, UsageError } from '../../../errors.js';
import {
  parseChoice,
  parseHeaders,
  parseId,
  montoText,
  parseTimeoutSeconds,
  parseUrl,
  printable,
} from '../../parse.js';
import { field, formatMs, resolveSecret } from '../../shared/webhook.js';
import type { triggerOptions } from './index.js';

const TYPED_FIELDS: Record<string, 'int' | 'int?' | 'string'> = {
  cobro_id: 'int',
  transaccion_id: 'int?',
  event: 'string',
  codigo: 'string',
  estado: 'string',
  monto: 'string',
  monto_cobrado: 'string',
};

/** --set field=value (typed for the known fields), field:=<json> for a raw JSON value. */
export function applySets(body: EventBody, sets: readonly string[] | undefined): EventBody {
  const out: EventBody = { ...body };
  for (const raw of sets ?? []) {
    const rawJson = /^([A-Za-z_][A-Za-z0-9_]*):=(.*)$/s.exec(raw);
    const plain = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(raw);
    if (rawJson) {
      try {
        out[rawJson[1]!] = JSON.parse(rawJson[2]!);
      } catch {
        throw new UsageError(
          `--set ${rawJson[1]}:= necesita un valor JSON válido (ej. 42, null, "texto")`,
        );
      }
      continue;
    }
    if (!plain) throw new UsageError(`--set "${printable(raw)}" no tiene la forma campo=valor`);
    const [, field, value] = plain as unknown as [string, string, string];
    const kind = TYPED_FIELDS[field];
    if (kind === 'int' || kind === 'int?') {
      if (kind === 'int?' && value === 'null') out[field] = null;
      else if (/^-?[0-9]{1,15}$/.test(value)) out[field] = Number(value);
      else
        throw new UsageError(
          `--set ${field}: "${printable(value)}" no es un entero${kind === 'int?' ? ' ni null' : ''}`,
        );
    } else {
      out[field] = value;
    }
  }
  return out;
}

export async function run(
  ctx: Context,
  args: string[],
  opts: OptionsOf<typeof triggerOptions>,
): Promise<void> {
  const event = parseChoice(args[0], EVENTOS, 'evento');
  if (!event) throw new UsageError(`falta el evento; valores posibles: ${EVENTOS.join(', ')}`);
  const estado = parseChoice(opts.estado, ESTADOS_COBRO, '--estado');
  const monto = opts.monto === undefined ? undefined : montoText(opts.monto);
  const cobroId = opts.cobro === undefined ? undefined : parseId(opts.cobro, '--cobro');
  const forwardTo =
    opts.forwardTo === undefined ? undefined : parseUrl(opts.forwardTo, '--forward-to', 'http');
  const timeoutMs = parseTimeoutSeconds(opts.forwardTimeout);
  const extra = parseHeaders(opts.header);
  if (opts.sandbox === true) {
    if (opts.set !== undefined || estado !== undefined) {
      throw new UsageError(
        '--set y --estado no se combinan con --sandbox: el sandbox arma el cuerpo a partir del cambio real',
      );
    }
    const { viaSandbox } = await import('./trigger-sandbox.js');
    return viaSandbox(ctx, event, { cobroId, monto, forwardTo });
  }
  const secret = await resolveSecret(ctx, opts);
  // Without --forward-to: the local listener, where `svc webhook listen` listens by default.
  const target = forwardTo ?? LOCAL_LISTENER_URL;
  if (!forwardTo && !ctx.globals.json)
    ctx.io.err(
      ctx.io.c.dim(`al listener local ${LOCAL_LISTENER_URL} (--forward-to para otra dirección)`),
    );

  let body: EventBody = sampleBody(event, { monto });
  if (cobroId !== undefined) body = await fromRealCobro(ctx, event, cobroId, monto, body);
  if (estado) body.estado = estado;
  body = applySets(body, opts.set);

  const text = JSON.stringify(body);
  const headers: Record<string, string> = {
    'user-agent': `svc/${VERSION} (webhook trigger)`,
    ...notificationHeaders(secret, String(body.event), text),
  };
  for (const [k, v] of extra) headers[k] = v;
  const { Forwarder } = await import('../../../webhooks/forwarder.js');
  const forwarder = new Forwarder({ timeoutMs, network: await ctx.network() });
  const result = await forwarder
    .forward(target, Buffer.from(text, 'utf8'), headers)
    .finally(() => forwarder.close());
  const { io } = ctx;
  const c = io.c;
  const start = result.response?.length
    ? result.response.subarray(0, 300).toString('utf8').replace(/\s+/g, ' ').trim()
    : '';
  if (ctx.globals.json) {
    io.outRaw(
      JSON.stringify(
        {
          event: body.event,
          target: maskTarget(target),
          status: result.status,
          ok: result.ok,
          latency_ms: result.latencyMs,
          ...(result.error ? { error: result.error } : {}),
          ...(!result.ok && start ? { response_start: start } : {}),
          body,
        },
        null,
        2,
      ),
    );
  } else if (result.status !== null) {
    const paint = result.ok ? c.green : c.red;
    io.out(
      `${field(body.event, 40)} (cobro ${field(body.cobro_id, 20)}, ${field(body.estado, 40)}, ${field(body.monto, 24)}) --> ${maskTarget(target)}  ${paint(String(result.status))} ${c.dim(formatMs(result.latencyMs))}`,
    );
    if (!result.ok && start) io.out(c.dim(`  «${printable(errorMessageOf(start) ?? start, 200)}»`));
  }
  if (result.status === null) {
    throw new CliError(
      `no se pudo entregar a ${maskTarget(target)}: ${result.error ?? 'sin respuesta'}`,
      {
        exit: EXIT.network,
        code: 'app_unreachable',
        hint: forwardTo
          ? undefined
          : '¿está corriendo `svc webhook listen`? (o --forward-to con la URL de tu app)',
      },
    );
  }
  if (!result.ok)
    throw new CliError(
      `${maskTarget(target)} respondió ${result.status}: la notificación no se dio por entregada`,
      { exit: EXIT.refused, code: 'app_refused' },
    );
}

/** Codigo, monto and what was collected from the real payment request; needs a key. */
async function fromRealCobro(
  ctx: Context,
  event: Evento,
  id: number,
  monto: string | undefined,
  fallback: EventBody,
): Promise<EventBody> {
  const r = await ctx.resolved();
  if ((!r.apiKey && !r.liveKeyInKeyring) || !r.baseUrl) {
    ctx.io.err(
      ctx.io.c.yellow(
        `aviso: sin clave o dirección configuradas, el cuerpo usa cobro_id ${id} con codigo y monto de ejemplo`,
      ),
    );
    return { ...fallback, cobro_id: id };
  }
  const client = await ctx.client();
  const cobro = (await ctx.spin(`leyendo el cobro ${id}…`, () => client.verCobro(id))).data.data;
  return sampleBody(event, {
    cobro_id: cobro.id,
    codigo: cobro.codigo,
    monto: monto ?? cobro.monto,
    monto_cobrado: cobro.monto_cobrado,
  });
}

/** An answer like `{"error": …, "message": "…"}` (svc webhook listen's 502 says why there): its message. */
function errorMessageOf(text: string): string | undefined {
  try {
    const v = JSON.parse(text) as { message?: unknown };
    return typeof v?.message === 'string' ? v.message : undefined;
  } catch {
    return undefined;
  }
}
