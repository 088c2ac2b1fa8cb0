// Refunds: POST /v1/cobros/{id}/devoluciones, GET /v1/devoluciones, GET /v1/devoluciones/{id}.
import { API } from '../../api/contract.js';
import { formatCents, parseAmount } from '../../domain/money.js';
import { notFound } from '../sandbox-error.js';
import { eventOf, findCobro, idOf, withWire } from '../model.js';
import * as state from '../state.js';
import type { DevolucionRec, Op } from '../store.js';
import { ok, okItems, type Handler } from '../types.js';
import { badWith, readBody } from './validate.js';

export const crear: Handler = (deps, req) => {
  const { store, clock } = deps;
  const rec = findCobro(deps, req.merchant.id, req.params[0], req.now);
  const bad = badWith(API.devolver.error400);
  const { monto, transaccion_id: txId } = readBody(API.devolver.request, req.json(), bad, req.now);
  const tx = txId === null ? undefined : store.transacciones.get(req.merchant.id, txId);
  if (txId !== null && !tx) throw bad(`transaccion_id: la transacción ${txId} no existe`);

  let move;
  try {
    move = state.refund({
      estado: rec.wire.estado,
      cobrado: parseAmount(rec.wire.monto_cobrado),
      devuelto: parseAmount(rec.devuelto),
      amount: monto,
      transaccion: tx && {
        monto: parseAmount(tx.wire.monto),
        devuelto: parseAmount(tx.devuelto),
        estado: tx.wire.estado,
        sameCobro: tx.wire.cobro_id === rec.wire.id,
      },
    });
  } catch (err) {
    if (err instanceof state.TransitionError)
      throw bad(
        txId !== null && /transacci[oó]n/.test(err.message)
          ? `transaccion_id: ${err.message}`
          : err.message,
      );
    throw err;
  }
  const local = clock.local(req.now);
  const next = withWire(rec, { estado: move.estado }, local, {
    devuelto: formatCents(move.devuelto),
  });
  const dev: DevolucionRec = {
    merchant: rec.merchant,
    wire: {
      id: store.nextId('devoluciones'),
      cobro_id: rec.wire.id,
      monto: formatCents(monto),
      tipo: move.tipo,
      estado: move.estado,
      created_at: local,
    },
  };
  const ops: Op[] = [
    ['cobro', next],
    ['devolucion', dev],
  ];
  if (tx)
    ops.push(['transaccion', { ...tx, devuelto: formatCents(parseAmount(tx.devuelto) + monto) }]);
  store.commit(ops, [eventOf(next, move.event, txId)]);
  return ok(dev.wire, 201);
};

export const listar: Handler = (deps, req) =>
  okItems(function* ({ skip, below }) {
    for (const d of deps.store.devoluciones.newestFirst(req.merchant.id, skip, below)) yield d.wire;
  });

export const ver: Handler = (deps, req) => {
  const d = deps.store.devoluciones.get(req.merchant.id, idOf(req.params[0]));
  if (!d) throw notFound();
  return ok(d.wire);
};
