// GET /v1/salud: public, not wrapped in `data`.
import { SANDBOX_SERVICE_NAME } from '../../domain/rules.js';
import type { Reply } from '../types.js';

export const SERVICE_NAME = SANDBOX_SERVICE_NAME;
export const API_VERSION = 'v1';

export function salud(): Reply {
  return { status: 200, body: { ok: true, name: SERVICE_NAME, version: API_VERSION } };
}
