// GET /v1/cargos: the fee table (fees.ts).
import { cargos as table } from '../fees.js';
import { ok, type Handler } from '../types.js';

export const cargos: Handler = () => ok(table());
