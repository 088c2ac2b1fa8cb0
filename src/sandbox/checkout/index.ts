// The payer's side of the sandbox, behind each payment request's `url`:
//   GET  /pagar/{codigo}            the checkout (or the state, when it takes no payment)
//   GET  /pagar/{codigo}/recibo     the receipt
//   POST /pagar/{codigo}/pagar      modo=total|parcial, monto, medio
//   POST /pagar/{codigo}/rechazar   medio
//   POST /pagar/{codigo}/expirar
// Public (the payer has no key). Submits are application/x-www-form-urlencoded and go
// through the very control-plane handlers of /_sandbox/cobros/{id}/… on behalf of the
// request's merchant, so states, transactions, settlements and notifications cannot
// differ from `svc sandbox pagar`. Every submit answers 303 (no resubmit on reload).
import { AmountError, formatCents, parseAmount, type Cents } from '../../domain/money.js';
import * as control from '../control.js';
import type { ControlDeps, ControlHandler } from '../control.js';
import { SandboxError } from '../sandbox-error.js';
import { allowedMedios, feeOf } from '../fees.js';
import { refresh } from '../model.js';
import * as state from '../state.js';
import type { CobroRec } from '../store.js';
import type { ApiRequest, Reply } from '../types.js';
import { parseTyped, pesos, typedRefusal } from './format.js';
import {
  PAGE_HEADERS,
  checkoutPage,
  notFoundPage,
  receiptPage,
  type CheckoutView,
} from './page.js';

const HTML = 'text/html; charset=utf-8';

const html = (status: number, body: string): Reply => ({
  status,
  body,
  contentType: HTML,
  headers: PAGE_HEADERS,
});

const seeOther = (location: string): Reply => ({
  status: 303,
  body: '',
  contentType: 'text/plain; charset=utf-8',
  headers: { Location: sendable(location), 'Cache-Control': 'no-store' },
});

/**
 * A Location Node can put in a header. success_url/error_url are stored normalised
 * since they are created, but a data file written before may hold raw non-ASCII
 * (`https://a.example/€`), and a header Node refuses would answer 500 after the
 * money moved.
 */
function sendable(location: string): string {
  if (/^[\x21-\x7e]*$/.test(location)) return location;
  try {
    return new URL(location).href;
  } catch {
    return location.replace(/[^\x21-\x7e]/gu, (c) =>
      [...Buffer.from(c, 'utf8')]
        .map((x) => `%${x.toString(16).toUpperCase().padStart(2, '0')}`)
        .join(''),
    );
  }
}

/** The request behind a public code, with expiry applied; undefined when there is none. */
function lookup(deps: ControlDeps, req: ApiRequest): CobroRec | undefined {
  const rec = deps.store.codigos.get(req.params[0] ?? '');
  return rec && refresh(deps, rec, req.now);
}

/**
 * What a payment depends on: what is left to pay and the state. The form carries it,
 * so a second click, or a page left open while another payment went in, cannot pay
 * twice what the payer saw once.
 */
function versionOf(rec: CobroRec): string {
  return `${rec.wire.estado}:${rec.wire.monto_cobrado}`;
}

function view(deps: ControlDeps, rec: CobroRec, extra: Partial<CheckoutView> = {}): CheckoutView {
  const d = rec.wire;
  return {
    codigo: d.codigo,
    comercio: deps.store.merchant(rec.merchant).nombre,
    concepto: d.concepto,
    estado: d.estado,
    monto: parseAmount(d.monto),
    cobrado: parseAmount(d.monto_cobrado),
    devuelto: parseAmount(rec.devuelto),
    vencimiento: d.vencimiento,
    medios: allowedMedios(d.medios).map((medio) => ({ medio, label: feeOf(medio).label })),
    cvu: d.cvu,
    qr: d.qr,
    canPay: state.PAYABLE.includes(d.estado),
    canCancel: state.OPEN.includes(d.estado),
    version: versionOf(rec),
    ...extra,
  };
}

const notFound = (req: ApiRequest) => html(404, notFoundPage(req.params[0] ?? ''));

const base = (rec: CobroRec) => `/pagar/${encodeURIComponent(rec.wire.codigo)}`;

/** GET /pagar/{codigo}; `?tx=<id>` confirms a partial payment just credited. */
export const pagina: ControlHandler = (deps, req) => {
  const rec = lookup(deps, req);
  if (!rec) return notFound(req);
  let notice: string | undefined;
  const tx = deps.store.transacciones.get(rec.merchant, Number(req.query.get('tx')));
  if (tx && tx.wire.cobro_id === rec.wire.id && tx.wire.estado === 'ACREDITADO') {
    const left = parseAmount(rec.wire.monto) - parseAmount(rec.wire.monto_cobrado);
    notice = `Pago de ${pesos(parseAmount(tx.wire.monto))} acreditado (operación ${tx.wire.codigo}).`;
    if (left > 0n) notice += ` Quedan ${pesos(left)} por pagar.`;
  }
  return html(200, checkoutPage(view(deps, rec, { notice })));
};

/** GET /pagar/{codigo}/recibo: what was paid, one line per credited transaction. */
export const recibo: ControlHandler = (deps, req) => {
  const rec = lookup(deps, req);
  if (!rec) return notFound(req);
  const lines = [];
  for (const t of deps.store.transacciones.newestFirst(rec.merchant)) {
    if (t.wire.cobro_id !== rec.wire.id || t.wire.estado !== 'ACREDITADO') continue;
    lines.unshift({
      codigo: t.wire.codigo,
      medio: feeOf(t.wire.medio).label,
      monto: parseAmount(t.wire.monto),
      fecha: t.wire.fecha,
    });
  }
  return html(200, receiptPage(view(deps, rec), lines));
};

/** The form's fields; a body that is not a form reads as an empty one. */
function form(req: ApiRequest): URLSearchParams {
  return new URLSearchParams(req.text?.() ?? '');
}

/** Runs a control-plane move as the request's merchant would through /_sandbox/cobros/{id}/…. */
function asMerchant(
  deps: ControlDeps,
  req: ApiRequest,
  rec: CobroRec,
  move: ControlHandler,
  body: Record<string, string>,
): void {
  move(deps, {
    merchant: deps.store.merchant(rec.merchant),
    params: [String(rec.wire.id)],
    query: new URLSearchParams(),
    now: req.now,
    json: () => body,
  });
}

/** The page again with what went wrong, keeping what the payer typed. */
function failed(
  deps: ControlDeps,
  req: ApiRequest,
  status: number,
  error: string,
  typed: CheckoutView['typed'],
): Reply {
  const rec = lookup(deps, req)!;
  return html(status, checkoutPage(view(deps, rec, { error, typed })));
}

/** A refusal of the state machine or of the control plane, in the payer's words. */
function refusal(err: unknown, rec: CobroRec): string {
  if (err instanceof SandboxError && err.code === 'invalid_state') {
    return `Este cobro ya no admite esta operación (estado: ${rec.wire.estado}). Recargá la página para ver cómo quedó.`;
  }
  // The service's own words quoted, as svc quotes them: what the API said, not a sentence of the page's.
  if (err instanceof SandboxError)
    return `No se pudo completar. El servicio respondió: «${err.message}».`;
  throw err;
}

function medioOf(f: URLSearchParams): Record<string, string> {
  const medio = f.get('medio');
  return medio ? { medio } : {};
}

export const pagar: ControlHandler = (deps, req) => {
  const rec = lookup(deps, req);
  if (!rec) return notFound(req);
  const f = form(req);
  const typed = { monto: f.get('monto') ?? '', medio: f.get('medio') ?? undefined };
  const modo = f.get('modo') ?? (typed.monto.trim() ? 'parcial' : 'total');
  const body = medioOf(f);
  const version = f.get('version');
  if (version !== null && version !== versionOf(rec)) {
    const why = state.PAYABLE.includes(rec.wire.estado)
      ? `Este cobro cambió desde que abriste la página: ya se acreditó otro pago. Revisá lo que queda por pagar antes de seguir.`
      : `Este cobro ya no admite pagos (estado: ${rec.wire.estado}).`;
    return failed(deps, req, 409, why, typed);
  }
  if (modo === 'parcial') {
    let cents: Cents;
    try {
      if (!typed.monto.trim())
        throw new AmountError('Escribí el monto que querés pagar, o tocá «Pagar el total».');
      cents = parseTyped(typed.monto);
    } catch (err) {
      if (!(err instanceof AmountError)) throw err;
      return failed(deps, req, 400, typedRefusal(typed.monto, err), typed);
    }
    const left = parseAmount(rec.wire.monto) - parseAmount(rec.wire.monto_cobrado);
    if (state.PAYABLE.includes(rec.wire.estado) && cents > left) {
      return failed(
        deps,
        req,
        400,
        `El monto ${pesos(cents)} supera lo que queda por pagar (${pesos(left)}).`,
        typed,
      );
    }
    body.monto = formatCents(cents);
  } else if (modo !== 'total') {
    return failed(deps, req, 400, 'Elegí «Pagar este monto» o «Pagar el total».', typed);
  }
  try {
    asMerchant(deps, req, rec, control.pagar, body);
  } catch (err) {
    return failed(
      deps,
      req,
      err instanceof SandboxError && err.code === 'invalid_state' ? 409 : 400,
      refusal(err, rec),
      typed,
    );
  }
  const now = deps.store.codigos.get(rec.wire.codigo)!;
  if (now.wire.estado === 'PAGADA') return seeOther(now.wire.success_url ?? `${base(now)}/recibo`);
  const tx = deps.store.transacciones.newestFirst(rec.merchant).next().value;
  return seeOther(
    `${base(now)}${tx && tx.wire.cobro_id === now.wire.id ? `?tx=${tx.wire.id}` : ''}`,
  );
};

export const rechazar: ControlHandler = (deps, req) => {
  const rec = lookup(deps, req);
  if (!rec) return notFound(req);
  const f = form(req);
  try {
    asMerchant(deps, req, rec, control.rechazar, medioOf(f));
  } catch (err) {
    return failed(deps, req, 409, refusal(err, rec), { medio: f.get('medio') ?? undefined });
  }
  return seeOther(rec.wire.error_url ?? base(rec));
};

export const expirar: ControlHandler = (deps, req) => {
  const rec = lookup(deps, req);
  if (!rec) return notFound(req);
  try {
    asMerchant(deps, req, rec, control.expirar, {});
  } catch (err) {
    return failed(deps, req, 409, refusal(err, rec), {});
  }
  return seeOther(base(rec));
};
