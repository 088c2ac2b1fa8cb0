// GET /v1/transacciones (filters medio, estado) and GET /v1/transacciones/{id}.
import { notFound } from '../sandbox-error.js';
import { idOf } from '../model.js';
import { ok, okItems, skipping, type Handler } from '../types.js';

export const listar: Handler = (deps, req) => {
  // An unknown filter value matches nothing, as a filter on any other value would.
  const medio = req.query.get('medio') || null;
  const estado = req.query.get('estado') || null;
  const all = (skip: number, below: number) =>
    deps.store.transacciones.newestFirst(req.merchant.id, skip, below);
  if (medio === null && estado === null)
    return okItems(function* ({ skip, below }) {
      for (const t of all(skip, below)) yield t.wire;
    });
  return okItems(({ skip, below }) =>
    skipping(
      (function* () {
        for (const t of all(0, below)) {
          if (medio !== null && t.wire.medio !== medio) continue;
          if (estado !== null && t.wire.estado !== estado) continue;
          yield t.wire;
        }
      })(),
      skip,
    ),
  );
};

export const ver: Handler = (deps, req) => {
  const t = deps.store.transacciones.get(req.merchant.id, idOf(req.params[0]));
  if (!t) throw notFound();
  return ok(t.wire);
};
