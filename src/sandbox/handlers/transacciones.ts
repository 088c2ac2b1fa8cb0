// GET /v1/transacciones (filters medio, estado) and GET /v1/transacciones/{id}.
import { notFound } from '../sandbox-error.js';
import { idOf } from '../model.js';
import { ok, type Handler } from '../types.js';

export const listar: Handler = (deps, req) => {
  // An unknown filter value matches nothing, as a filter on any other value would.
  const medio = req.query.get('medio');
  const estado = req.query.get('estado');
  const out = [];
  for (const t of deps.store.transacciones.newestFirst(req.merchant.id)) {
    if (medio !== null && medio !== '' && t.wire.medio !== medio) continue;
    if (estado !== null && estado !== '' && t.wire.estado !== estado) continue;
    out.push(t.wire);
  }
  return ok(out);
};

export const ver: Handler = (deps, req) => {
  const t = deps.store.transacciones.get(req.merchant.id, idOf(req.params[0]));
  if (!t) throw notFound();
  return ok(t.wire);
};
