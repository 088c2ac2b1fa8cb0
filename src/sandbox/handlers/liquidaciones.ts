// GET /v1/liquidaciones: one settlement estimate per credited transaction, newest first.
import { okItems, type Handler } from '../types.js';

export const listar: Handler = (deps, req) =>
  okItems(function* ({ skip, below }) {
    for (const l of deps.store.liquidaciones.newestFirst(req.merchant.id, skip, below))
      yield l.wire;
  });
