// Payment requests: POST /v1/cobros, GET /v1/cobros (estado, q), GET /v1/cobros/{id},
// POST /v1/cobros/{id}/sync.
import { API } from '../../api/contract.js';
import type { EstadoCobro } from '../../api/enums.js';
import { formatCents } from '../../domain/money.js';
import { SandboxError } from '../sandbox-error.js';
import { eventOf, findCobro, refresh } from '../model.js';
import * as state from '../state.js';
import { payerUrl, type CobroRec, type CobroWire } from '../store.js';
import {
  ok,
  okItems,
  skipping,
  type ApiRequest,
  type Deps,
  type Handler,
  type Reply,
} from '../types.js';
import { badWith, readBody } from './validate.js';

const DAY = 86_400_000;
export const DEFAULT_EXPIRY_MS = 7 * DAY;

export const crear: Handler = (deps, req) => crearCon(deps, req);

/**
 * Creates a payment request; `fixed` gives it an id and code of its own (a scenario
 * exported from another sandbox, POST /_sandbox/cobros) instead of the next ones.
 */
export function crearCon(
  deps: Deps,
  req: ApiRequest,
  fixed?: { id: number; codigo: string },
): Reply {
  if (!req.merchant.puede_cobrar) {
    throw new SandboxError(
      403,
      'comercio_no_listo',
      'el comercio no completó sus datos o su alta y no puede crear cobros (GET /v1/cuenta muestra puede_cobrar)',
    );
  }
  const bad = badWith(API.crearCobro.error400);
  const b = readBody(API.crearCobro.request, req.json(), bad, req.now);
  const { concepto, monto, referencia, success_url: successUrl, error_url: errorUrl } = b;
  const now = req.now;
  const vencMs = b.vencimiento ?? now + DEFAULT_EXPIRY_MS;
  const medios = { tarjeta: b.tarjeta, qr: b.qr, transferencia: b.transferencia };
  if (!medios.tarjeta && !medios.qr && !medios.transferencia) {
    throw bad(
      'tarjeta, qr, transferencia: ningún medio de pago habilitado; al menos uno debe ser true',
    );
  }

  const { store, clock } = deps;
  const id = fixed?.id ?? store.nextId('cobros');
  const codigo = fixed?.codigo ?? store.newCodigo();
  const local = clock.local(now);
  const montoText = formatCents(monto);
  const rec: CobroRec = {
    merchant: req.merchant.id,
    wire: {
      id,
      codigo,
      concepto,
      monto: montoText,
      monto_cobrado: '0.00',
      estado: state.created().estado,
      url: payerUrl(deps.baseUrl(), codigo),
      cvu: null,
      qr: null,
      referencia,
      medios,
      vencimiento: clock.local(vencMs),
      success_url: successUrl,
      error_url: errorUrl,
      created_at: local,
      updated_at: local,
    },
    readyAt: now + deps.readyDelayMs,
    vencMs,
    cvu: cvuOf(id),
    qr: `SVCQR1|${codigo}|${montoText}`,
    devuelto: '0.00',
  };
  store.commit([['cobro', rec]], [eventOf(rec, state.created().event, null)]);
  return ok(refresh(deps, rec, now).wire, 201);
}

/** A transfer account identifier of 22 digits, derived from the id. */
export function cvuOf(id: number): string {
  return `0000003100${String(id).padStart(12, '0')}`;
}

export const listar: Handler = (deps, req) => {
  const estado = req.query.get('estado') as EstadoCobro | null;
  const q = (req.query.get('q') ?? '').trim().toLowerCase();
  // Without a filter a page starts where it starts; a request left unread here is still
  // refreshed when read, and its expiry swept (app.ts).
  if (!estado && !q)
    return okItems(function* ({ skip, below }) {
      for (const rec of deps.store.cobros.newestFirst(req.merchant.id, skip, below))
        yield refresh(deps, rec, req.now).wire;
    });
  return okItems(({ skip, below }) => skipping(filtered(deps, req, estado, q, below), skip));
};

function* filtered(
  deps: Deps,
  req: ApiRequest,
  estado: EstadoCobro | null,
  q: string,
  below: number,
): Generator<CobroWire> {
  // `q` is looked up in the store's search text; each request found is checked again below.
  const found = q ? deps.store.searchCobros(req.merchant.id, q) : undefined;
  for (const rec of found ?? deps.store.cobros.newestFirst(req.merchant.id, 0, below)) {
    if (rec.wire.id >= below) continue;
    const cur = refresh(deps, rec, req.now);
    if (estado && cur.wire.estado !== estado) continue;
    if (
      q &&
      !cur.wire.codigo.toLowerCase().includes(q) &&
      !cur.wire.concepto.toLowerCase().includes(q) &&
      !(cur.wire.referencia ?? '').toLowerCase().includes(q)
    ) {
      continue;
    }
    yield cur.wire;
  }
}

export const ver: Handler = (deps, req) =>
  ok(findCobro(deps, req.merchant.id, req.params[0], req.now).wire);

export const sync: Handler = (deps, req) => {
  let rec = findCobro(deps, req.merchant.id, req.params[0], req.now);
  readBody(API.syncCobro.request, req.json(), badWith(API.syncCobro.error400), req.now);
  if (rec.readyAt > req.now) {
    // Asking for a refresh is what makes the transfer account and QR appear at once.
    rec = { ...rec, readyAt: req.now };
    deps.store.commit([['cobro', rec]]);
    rec = refresh(deps, rec, req.now);
  }
  return ok(rec.wire);
};
