// svc webhook trigger <event>: builds a realistic body for the event (from a real
// payment request with --cobro and a key), signs it with the secret and POSTs it to
// --forward-to; prints the target's status. Exit 1 when the target answers non-2xx,
// 6 when it cannot be reached. With --sandbox it drives the real state change in
// `svc sandbox` (create, pay, reject, refund…) so the sandbox sends the notification.
import type { Evento } from '../../../api/enums.js';
import { ESTADOS_COBRO, EVENTOS } from '../../../api/enums.js';
import type { Client } from '../../../api/client.js';
import { shownAddress } from '../../../api/address.js';
import { ApiError } from '../../../api/errors.js';
import type { Cobro } from '../../../api/schemas.js';
import { AmountError, formatCents, normalizeAmount, parseAmount, parsePositiveAmount, percentOf, sumAmounts } from '../../../money.js';
import { sampleBody, type EventBody } from '../../../webhooks/events.js';
import { notificationHeaders } from '../../../webhooks/signature.js';
import { VERSION } from '../../../version.js';
import type { Context } from '../../context.js';
import { CliError, EXIT, UsageError } from '../../errors.js';
import { parseChoice, parseId, printable } from '../../parse.js';
import { field, formatMs, parseHeaders, parseTargetUrl, parseTimeoutSeconds, resolveSecret } from './shared.js';
import { printJson } from '../../../output/format.js';

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
export function applySets(body: EventBody, sets: unknown): EventBody {
  const list = sets === undefined ? [] : Array.isArray(sets) ? (sets as unknown[]) : [sets];
  const out: EventBody = { ...body };
  for (const raw of list.map(String)) {
    const rawJson = /^([A-Za-z_][A-Za-z0-9_]*):=(.*)$/s.exec(raw);
    const plain = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(raw);
    if (rawJson) {
      try {
        out[rawJson[1]!] = JSON.parse(rawJson[2]!);
      } catch {
        throw new UsageError(`--set ${rawJson[1]}:= necesita un valor JSON válido (ej. 42, null, "texto")`);
      }
      continue;
    }
    if (!plain) throw new UsageError(`--set "${printable(raw)}" no tiene la forma campo=valor`);
    const [, field, value] = plain as unknown as [string, string, string];
    const kind = TYPED_FIELDS[field];
    if (kind === 'int' || kind === 'int?') {
      if (kind === 'int?' && value === 'null') out[field] = null;
      else if (/^-?[0-9]{1,15}$/.test(value)) out[field] = Number(value);
      else throw new UsageError(`--set ${field}: "${printable(value)}" no es un entero${kind === 'int?' ? ' ni null' : ''}`);
    } else {
      out[field] = value;
    }
  }
  return out;
}

function amountFlag(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  try {
    parsePositiveAmount(String(value));
    return normalizeAmount(String(value));
  } catch (err) {
    if (err instanceof AmountError) throw new UsageError(`--monto: ${err.message}`);
    throw err;
  }
}

export async function run(ctx: Context, args: string[], opts: Record<string, unknown>): Promise<void> {
  const event = parseChoice(args[0], EVENTOS, 'evento');
  if (!event) throw new UsageError(`falta el evento; valores posibles: ${EVENTOS.join(', ')}`);
  const estado = parseChoice(opts.estado, ESTADOS_COBRO, '--estado');
  const monto = amountFlag(opts.monto);
  const cobroId = opts.cobro === undefined ? undefined : parseId(opts.cobro, '--cobro');
  const forwardTo = opts.forwardTo === undefined ? undefined : parseTargetUrl(opts.forwardTo, '--forward-to');
  const timeoutMs = parseTimeoutSeconds(opts.forwardTimeout);
  const extra = parseHeaders(opts.header);
  if (opts.sandbox === true) {
    if (opts.set !== undefined || estado !== undefined) {
      throw new UsageError('--set y --estado no se combinan con --sandbox: el sandbox arma el cuerpo a partir del cambio real');
    }
    return viaSandbox(ctx, event, { cobroId, monto, forwardTo });
  }
  if (!forwardTo) throw new UsageError('falta --forward-to URL (tu app, o el listener de `svc webhook listen`); o --sandbox contra svc sandbox');
  const secret = await resolveSecret(ctx, opts);

  let body = sampleBody(event, { monto });
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
  const forwarder = new Forwarder({ timeoutMs });
  const result = await forwarder.forward(forwardTo, Buffer.from(text, 'utf8'), headers).finally(() => forwarder.close());
  const { io } = ctx;
  const c = io.c;
  const start = result.response?.length ? result.response.subarray(0, 300).toString('utf8').replace(/\s+/g, ' ').trim() : '';
  if (ctx.globals.json) {
    io.outRaw(
      JSON.stringify(
        {
          event: body.event,
          target: shownAddress(forwardTo),
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
    io.out(`${field(body.event, 40)} (cobro ${field(body.cobro_id, 20)}, ${field(body.estado, 40)}, ${field(body.monto, 24)}) --> ${shownAddress(forwardTo)}  ${paint(String(result.status))} ${c.dim(formatMs(result.latencyMs))}`);
    if (!result.ok && start) io.out(c.dim(`  «${printable(start, 200)}»`));
  }
  if (result.status === null) throw new CliError(`no se pudo entregar a ${shownAddress(forwardTo)}: ${result.error ?? 'sin respuesta'}`, EXIT.network);
  if (!result.ok) throw new CliError(`${shownAddress(forwardTo)} respondió ${result.status}: la notificación no se dio por entregada`, EXIT.refused);
}

/** Codigo, monto and what was collected from the real payment request; needs a key. */
async function fromRealCobro(ctx: Context, event: Evento, id: number, monto: string | undefined, fallback: EventBody): Promise<EventBody> {
  const r = await ctx.resolved();
  if ((!r.apiKey && !r.liveKeyInKeyring) || !r.baseUrl) {
    ctx.io.err(ctx.io.c.yellow(`aviso: sin clave o dirección configuradas, el cuerpo usa cobro_id ${id} con codigo y monto de ejemplo`));
    return { ...fallback, cobro_id: id };
  }
  const client = await ctx.client();
  const cobro = (await ctx.spin(`leyendo el cobro ${id}…`, () => client.verCobro(id))).data.data;
  return sampleBody(event, { cobro_id: cobro.id, codigo: cobro.codigo, monto: monto ?? cobro.monto, monto_cobrado: cobro.monto_cobrado });
}

// --- --sandbox: the real state change -------------------------------------------

async function viaSandbox(
  ctx: Context,
  event: Evento,
  o: { cobroId: number | undefined; monto: string | undefined; forwardTo: string | undefined },
): Promise<void> {
  const { io } = ctx;
  const c = io.c;
  const client = await ctx.client();
  const control = async (path: string, body: unknown = {}) =>
    (await client.request({ method: 'POST', path, body })).data as { data: unknown };
  // Is this a svc sandbox? The control plane only exists there.
  try {
    await client.request({ method: 'GET', path: '/_sandbox/webhook' });
  } catch (err) {
    if (err instanceof ApiError && err.http === 404) {
      throw new UsageError(`${client.baseUrl} no es un svc sandbox (no tiene /_sandbox/): --sandbox solo funciona contra \`svc sandbox\``);
    }
    throw err;
  }
  if (o.forwardTo) {
    await control('/_sandbox/webhook', { url: o.forwardTo });
    io.err(`${c.dim('·')} el sandbox ahora envía las notificaciones a ${shownAddress(o.forwardTo)}`);
  }
  const step = (text: string) => io.err(`${c.dim('·')} ${text}`);
  const hook = ((await client.request({ method: 'GET', path: '/_sandbox/webhook' })).data as { data: { url: string | null } }).data.url;
  const lastEntrega = (await entregas(client)).reduce((max, e) => Math.max(max, e.id), 0);

  let cobro: Cobro;
  if (o.cobroId === undefined) {
    cobro = (await client.crearCobro({ concepto: `Prueba de svc webhook trigger ${event}`, monto: o.monto ?? '1500.00' })).data.data;
    step(`cobro ${cobro.id} creado (${cobro.monto}) → payment.created`);
  } else {
    if (event === 'payment.created') throw new UsageError('payment.created se envía al crear un cobro: sin --cobro, el trigger crea uno');
    cobro = (await client.verCobro(o.cobroId)).data.data;
  }
  const id = cobro.id;
  const move = async (action: string, body: unknown, emits: string) => {
    cobro = ((await control(`/_sandbox/cobros/${id}/${action}`, body)) as { data: Cobro }).data;
    step(`${action} cobro ${id} → ${cobro.estado} (${emits})`);
  };
  const left = () => parseAmount(cobro.monto) - parseAmount(cobro.monto_cobrado);
  const payAll = async () => {
    if (cobro.estado === 'PENDIENTE' || cobro.estado === 'EN_PROCESO' || cobro.estado === 'PAGADA_PARCIALMENTE') {
      await move('pagar', { monto: formatCents(left()) }, 'payment.approved');
    }
  };
  const refundable = async (): Promise<bigint> => {
    const devoluciones = (await client.listarDevoluciones()).data.data.filter((d) => d.cobro_id === id);
    return parseAmount(cobro.monto_cobrado) - sumAmounts(devoluciones.map((d) => d.monto));
  };
  switch (event) {
    case 'payment.created':
      break;
    case 'payment.pending':
      await move('iniciar', {}, 'payment.pending');
      break;
    case 'payment.approved':
      await move('pagar', {}, 'payment.approved');
      break;
    case 'payment.partially_paid': {
      const half = percentOf(left(), '50');
      if (half <= 0n) throw new UsageError(`al cobro ${id} le falta ${formatCents(left())}: no alcanza para un pago parcial`);
      await move('pagar', { monto: formatCents(half) }, 'payment.partially_paid');
      break;
    }
    case 'payment.rejected':
      await move('rechazar', {}, 'payment.rejected');
      break;
    case 'payment.refunded':
    case 'payment.partially_refunded': {
      await payAll();
      const total = await refundable();
      const amount = event === 'payment.refunded' ? total : percentOf(total, '50');
      if (amount <= 0n) throw new UsageError(`el cobro ${id} no tiene saldo para devolver`);
      const dev = (await client.devolver(id, { monto: formatCents(amount) })).data.data;
      step(`devolución de ${dev.monto} en cobro ${id} → ${dev.estado} (${event})`);
      break;
    }
  }
  // The sandbox sends asynchronously: show the delivery once it is attempted.
  const delivered = hook ? await waitDelivery(client, event, id, lastEntrega) : undefined;
  if (ctx.globals.json) {
    printJson(io, { event, cobro_id: id, estado: cobro.estado, entrega: delivered ?? null });
    return;
  }
  if (!delivered) {
    io.out(`${event} (cobro ${id}): ${hook ? `el sandbox todavía no lo entregó a ${hook}` : 'el sandbox no tiene URL de notificaciones'}`);
    if (!hook) io.err(c.dim('→ configurala con `svc sandbox --webhook-url URL`, o repetí con --forward-to URL'));
    return;
  }
  const paint = delivered.ok ? c.green : c.red;
  io.out(
    `${event} (cobro ${id}) --> ${field(shownAddress(delivered.url), 200)}  ${paint(delivered.status === null ? field(delivered.error, 200, 'sin respuesta') : field(delivered.status, 20))}` +
      (delivered.ok ? '' : c.dim(' (el sandbox reintenta)')),
  );
}

interface Entrega {
  id: number;
  event: string;
  cobro_id: number;
  url: string;
  status: number | null;
  ok: boolean;
  error: string | null;
}

/** The first delivery attempt of this event for this cobro after entrega `afterId`, within 5 s. */
async function waitDelivery(client: Client, event: string, cobroId: number, afterId: number): Promise<Entrega | undefined> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const mine = (await entregas(client)).find((e) => e.id > afterId && e.event === event && e.cobro_id === cobroId);
    if (mine) return mine;
    if (Date.now() > deadline) return undefined;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function entregas(client: Client): Promise<Entrega[]> {
  return ((await client.request({ method: 'GET', path: '/_sandbox/entregas' })).data as { data: Entrega[] }).data;
}
