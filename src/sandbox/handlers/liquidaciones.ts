// GET /v1/liquidaciones: one settlement estimate per credited transaction, newest first.
import { ok, type Handler } from '../types.js';

export const listar: Handler = (deps, req) => {
  const out = [];
  for (const l of deps.store.liquidaciones.newestFirst(req.merchant.id)) out.push(l.wire);
  return ok(out);
};
