// The control plane under /_sandbox/ (merchant's key required): the payer simulation
// that drives the state machine (iniciar, pagar, rechazar, expirar), the notification
// URL, the delivery attempts, the events, the request log, fault injection and the
// sandbox's clock; and what the dashboard (panel/) reads besides the API: one
// request whole, settlement totals by date, the keys and secret, a resend, the live
// stream.
import { MEDIOS, type EstadoCobro, type Medio } from '../api/enums.js';
import { formatCents, parseAmount } from '../domain/money.js';
import { porFecha } from '../domain/liquidaciones.js';
import { SandboxError, notFound } from './sandbox-error.js';
import type { Faults, RequestLog } from './faults.js';
import { allowedMedios, feeOf, settlementDate, split } from './fees.js';
import { amount, object, webhookUrl } from './handlers/validate.js';
import { eventOf, findCobro, idOf, refresh, withWire } from './model.js';
import type { Hub } from './hub.js';
import { parseDuration, type Clock } from './time.js';
import * as state from './state.js';
import {
  CODIGO_RE,
  type CobroRec,
  type LiquidacionRec,
  type StoredEvent,
  type TransaccionRec,
} from './store.js';
import { crearCon } from './handlers/cobros.js';
import { ok, type ApiRequest, type Deps, type Reply } from './types.js';

export interface ControlDeps extends Deps {
  faults: Faults;
  log: RequestLog;
  /** The dashboard's live stream: new events, log lines and delivery attempts. */
  hub: Hub;
}

export type ControlHandler = (deps: ControlDeps, req: ApiRequest) => Reply;

const bad = (message: string) => new SandboxError(400, 'bad_request', message);

/** A move the state machine refuses is a 400 `invalid_state` with its reason. */
function guarded<T>(move: () => T): T {
  try {
    return move();
  } catch (err) {
    if (err instanceof state.TransitionError)
      throw new SandboxError(400, 'invalid_state', err.message);
    throw err;
  }
}

function body(req: ApiRequest): Record<string, unknown> {
  const b = req.json();
  return b === undefined ? {} : object(b, bad);
}

/** A move that takes no body and changes only the state: start (iniciar) and expire (expirar). */
function stateOnly(move: (estado: EstadoCobro) => state.Move): ControlHandler {
  return (deps, req) => {
    const rec = findCobro(deps, req.merchant.id, req.params[0], req.now);
    body(req);
    const moved = guarded(() => move(rec.wire.estado));
    const next = withWire(rec, { estado: moved.estado }, deps.clock.local(req.now));
    deps.store.commit([['cobro', next]], [eventOf(next, moved.event, null)]);
    return ok(next.wire);
  };
}

export const iniciar = stateOnly(state.start);

/**
 * POST /_sandbox/cobros: POST /v1/cobros's body plus the `id` and `codigo` the request
 * had in the sandbox a scenario was exported from (`svc sandbox escenario exportar`),
 * so a sandbox started from it lists the same ids and codes. The id must follow the
 * last one and the code be free.
 */
export const crearConId: ControlHandler = (deps, req) => {
  const b = body(req);
  const id = b.id;
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id <= deps.store.cobros.maxId) {
    throw bad(`id: un entero mayor que el del último cobro (${deps.store.cobros.maxId})`);
  }
  const codigo = b.codigo;
  if (typeof codigo !== 'string' || !CODIGO_RE.test(codigo))
    throw bad('codigo: diez letras y dígitos, como los códigos del sandbox (ej. "T97F5DUHMA")');
  if (deps.store.codigos.has(codigo)) throw bad(`codigo: "${codigo}" ya es de otro cobro`);
  return crearCon(deps, req, { id, codigo });
};

function medioFor(rec: CobroRec, value: unknown): Medio {
  const allowed = allowedMedios(rec.wire.medios);
  if (value === undefined || value === null) return allowed[0]!;
  if (typeof value !== 'string' || !(MEDIOS as readonly string[]).includes(value))
    throw bad(`medio: uno de ${MEDIOS.join(', ')}`);
  if (!allowed.includes(value as Medio))
    throw bad(`medio: este cobro no acepta ${value} (acepta ${allowed.join(', ')})`);
  return value as Medio;
}

function operationCode(id: number): string {
  return `OP-${String(id).padStart(10, '0')}`;
}

/** A new transaction of the request: what the payer's attempt was, nothing refunded yet. */
function transaccion(
  rec: CobroRec,
  id: number,
  w: Omit<TransaccionRec['wire'], 'id' | 'cobro_id' | 'codigo'>,
): TransaccionRec {
  // The seed's field order.
  const wire = {
    id,
    cobro_id: rec.wire.id,
    medio: w.medio,
    monto: w.monto,
    te_cobramos: w.te_cobramos,
    te_queda: w.te_queda,
    estado: w.estado,
    codigo: operationCode(id),
    fecha: w.fecha,
    acreditacion: w.acreditacion,
  };
  return { merchant: rec.merchant, wire, devuelto: '0.00' };
}

export const pagar: ControlHandler = (deps, req) => {
  const { store, clock } = deps;
  const rec = findCobro(deps, req.merchant.id, req.params[0], req.now);
  const b = body(req);
  const medio = medioFor(rec, b.medio);
  const monto = parseAmount(rec.wire.monto);
  const cobrado = parseAmount(rec.wire.monto_cobrado);
  const paid =
    b.monto === undefined || b.monto === null ? monto - cobrado : amount(b.monto, 'monto', bad);
  const move = guarded(() => state.pay({ estado: rec.wire.estado, monto, cobrado, amount: paid }));
  const fee = feeOf(medio);
  const { te_cobramos, te_queda } = split(paid, medio);
  const local = clock.local(req.now);
  const txId = store.nextId('transacciones');
  const tx = transaccion(rec, txId, {
    medio,
    monto: formatCents(paid),
    te_cobramos,
    te_queda,
    estado: 'ACREDITADO',
    fecha: local,
    acreditacion: clock.local(req.now + fee.creditDelayMs),
  });
  const liq: LiquidacionRec = {
    merchant: rec.merchant,
    wire: {
      id: store.nextId('liquidaciones'),
      transaccion_id: txId,
      cobro_id: rec.wire.id,
      bruto: tx.wire.monto,
      te_cobramos,
      te_queda,
      fecha_operacion: local,
      fecha_estimada: settlementDate(local, fee.settlementBusinessDays, clock.tz),
      estado: 'estimado',
    },
  };
  const next = withWire(
    rec,
    { estado: move.estado, monto_cobrado: formatCents(move.cobrado) },
    local,
  );
  store.commit(
    [
      ['cobro', next],
      ['transaccion', tx],
      ['liquidacion', liq],
    ],
    [eventOf(next, move.event, txId)],
  );
  // The transaction it made, for a client that needs it next (a scenario's refund of
  // pagos[k]) without listing them all.
  return { ...ok(next.wire), headers: { 'x-sandbox-transaccion': String(txId) } };
};

export const rechazar: ControlHandler = (deps, req) => {
  const { store, clock } = deps;
  const rec = findCobro(deps, req.merchant.id, req.params[0], req.now);
  const b = body(req);
  const medio = medioFor(rec, b.medio);
  const move = guarded(() => state.reject(rec.wire.estado));
  const local = clock.local(req.now);
  const txId = store.nextId('transacciones');
  const left = parseAmount(rec.wire.monto) - parseAmount(rec.wire.monto_cobrado);
  const tx = transaccion(rec, txId, {
    medio,
    monto: formatCents(left),
    te_cobramos: '0.00',
    te_queda: '0.00',
    estado: 'RECHAZADO',
    fecha: local,
    acreditacion: local,
  });
  const next = withWire(rec, { estado: move.estado }, local);
  store.commit(
    [
      ['cobro', next],
      ['transaccion', tx],
    ],
    [eventOf(next, move.event, txId)],
  );
  return ok(next.wire);
};

export const expirar = stateOnly(state.expire);

export const webhook: ControlHandler = (deps, req) => {
  const b = body(req);
  const url = b.url === null ? null : webhookUrl(b.url, 'url', bad);
  deps.store.commit([['webhook', { merchant: req.merchant.id, url }]]);
  return ok({ url });
};

export const verWebhook: ControlHandler = (deps, req) =>
  ok({ url: deps.store.merchant(req.merchant.id).webhookUrl });

export const entregas: ControlHandler = (deps, req) =>
  ok(deps.dispatcher.listEntregas(req.merchant.id));

/** An event as GET /_sandbox/eventos lists it (and the dashboard's stream sends it). */
export function eventoView(clock: Clock, e: StoredEvent) {
  return { id: e.seq, fecha: clock.local(e.at), body: e.body };
}

export const eventos: ControlHandler = (deps, req) =>
  ok(deps.store.eventsOf(req.merchant.id).map((e) => eventoView(deps.clock, e)));

/**
 * POST /_sandbox/eventos/{id}/reenviar: sends an event again to the merchant's
 * notification URL (new attempts marked `reenvio` in /_sandbox/entregas; the event
 * and the request are unchanged). 202: queued, the attempts follow.
 */
export const reenviar: ControlHandler = (deps, req) => {
  const seq = idOf(req.params[0]);
  body(req);
  const e = deps.store.eventsOf(req.merchant.id).find((x) => x.seq === seq);
  if (!e) throw notFound();
  if (!deps.dispatcher.resend(e))
    throw bad(
      'no hay URL de notificaciones: definila con svc sandbox webhook URL (o POST /_sandbox/webhook {"url"})',
    );
  return ok(
    {
      evento_id: e.seq,
      event: e.body.event,
      cobro_id: e.body.cobro_id,
      url: deps.store.merchant(req.merchant.id).webhookUrl,
    },
    202,
  );
};

/**
 * GET /_sandbox/cobros/{id}: one request whole, as the dashboard's detail shows it:
 * its transactions, refunds, settlement estimates, events and delivery attempts
 * (newest first), and what is left to refund (0.00 outside the refundable states).
 */
export const detalle: ControlHandler = (deps, req) => {
  const m = req.merchant.id;
  const rec = findCobro(deps, m, req.params[0], req.now);
  const id = rec.wire.id;
  const mine = <R extends { wire: { cobro_id: number } }>(rows: Iterable<R>) =>
    [...rows].filter((r) => r.wire.cobro_id === id).map((r) => r.wire);
  const left = state.REFUNDABLE.includes(rec.wire.estado)
    ? parseAmount(rec.wire.monto_cobrado) - parseAmount(rec.devuelto)
    : 0n;
  return ok({
    cobro: rec.wire,
    queda_por_devolver: formatCents(left > 0n ? left : 0n),
    transacciones: mine(deps.store.transacciones.newestFirst(m)),
    devoluciones: mine(deps.store.devoluciones.newestFirst(m)),
    liquidaciones: mine(deps.store.liquidaciones.newestFirst(m)),
    eventos: deps.store
      .eventsOf(m)
      .filter((e) => e.body.cobro_id === id)
      .reverse()
      .map((e) => eventoView(deps.clock, e)),
    entregas: deps.dispatcher
      .listEntregas(m)
      .filter((e) => e.cobro_id === id)
      .reverse(),
  });
};

/**
 * GET /_sandbox/liquidaciones/totales: the merchant's settlement estimates summed by
 * the day the money is expected (fecha_estimada), earliest first: the totals of
 * `svc liquidaciones --por-fecha` (src/domain/liquidaciones.ts).
 */
export const totalesLiquidaciones: ControlHandler = (deps, req) =>
  ok(
    porFecha([...deps.store.liquidaciones.newestFirst(req.merchant.id)].map((l) => l.wire)).map(
      (d) => ({
        fecha: d.fecha,
        cantidad: d.liquidaciones,
        bruto: d.bruto,
        te_cobramos: d.te_cobramos,
        te_queda: d.te_queda,
      }),
    ),
  );

/**
 * GET /_sandbox/claves: the keys and the signing secret, the same set `svc sandbox`
 * prints when it starts (the dashboard shows them only when asked). Never cached.
 */
export const claves: ControlHandler = (deps, req) => ({
  ...ok({
    comercio: req.merchant.id,
    claves: deps.store.meta.merchants.map((m) => ({
      comercio: m.id,
      nombre: m.nombre,
      puede_cobrar: m.puede_cobrar,
      modo: m.ensayo ? 'live (ensayo)' : 'test',
      clave: m.apiKey,
    })),
    webhook_secret: deps.store.webhookSecret,
  }),
  headers: { 'Cache-Control': 'no-store' },
});

export const log: ControlHandler = (deps) => ok(deps.log.all());

export const crearFalla: ControlHandler = (deps, req) => ok(deps.faults.add(req.json()), 201);

export const listarFallas: ControlHandler = (deps) => ok(deps.faults.all());

export const borrarFallas: ControlHandler = (deps) => ok({ borradas: deps.faults.clear() });

/** What GET /_sandbox/reloj answers: the sandbox's now, in its zone and as an instant. */
function clockState(deps: ControlDeps) {
  const now = deps.clock.now();
  return {
    ahora: deps.clock.local(now),
    iso: new Date(now).toISOString(),
    tz: deps.clock.tz,
    adelanto_ms: deps.clock.offset(),
  };
}

export const reloj: ControlHandler = (deps) => ok(clockState(deps));

/**
 * POST /_sandbox/reloj {"avanzar": "8d"}: moves the clock on (journaled first), then
 * runs what fell due, in time order: each request past its expiry becomes CANCELADO
 * with payment.rejected, then every notification retry now due is sent.
 * {"reiniciar": true}: back to the real time (journaled first); what was written on
 * the moved clock stays as it was, and a request made then expires when its own date
 * comes.
 */
export const avanzarReloj: ControlHandler = (deps, req) => {
  const b = body(req);
  if (b.reiniciar !== undefined) {
    if (b.reiniciar !== true || b.avanzar !== undefined)
      throw bad('reiniciar: true, solo (sin avanzar)');
    if (deps.clock.offset() > 0) deps.store.setClockOffset(0);
    deps.clock.reset();
    return ok({ ...clockState(deps), vencidos: [], reintentos: 0 });
  }
  const ms = typeof b.avanzar === 'string' ? parseDuration(b.avanzar) : undefined;
  if (ms === undefined)
    throw bad(
      'avanzar: una duración como "30m", "12h", "8d" o "1d12h" (hasta diez años); o {"reiniciar": true}',
    );
  deps.store.setClockOffset(deps.clock.offset() + ms);
  deps.clock.advance(ms);
  const now = deps.clock.now();
  const due = [...deps.store.open]
    .filter((r) => r.vencMs !== null && r.vencMs <= now)
    .sort((a, b) => a.vencMs! - b.vencMs!);
  for (const rec of due) refresh(deps, rec, rec.vencMs!);
  const retries = deps.dispatcher.wake();
  return ok({ ...clockState(deps), vencidos: due.map((r) => r.wire.id), reintentos: retries });
};

/** GET /_sandbox/stream: the dashboard's live stream of events, delivery attempts and log lines (hub.ts). */
export const stream: ControlHandler = (deps, req) => deps.hub.reply(req.merchant.id);
