// GET /v1/cuenta: the key's merchant, with puede_cobrar.
import { ok, type Handler } from '../types.js';

export const cuenta: Handler = (_deps, req) => {
  const m = req.merchant;
  return ok({ id: m.id, email: m.email, nombre: m.nombre, puede_cobrar: m.puede_cobrar });
};
