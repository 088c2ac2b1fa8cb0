// GET /v1/salud: public, not wrapped in `data`.
import type { Reply } from '../types.js';

export const SERVICE_NAME = 'svc-sandbox';
export const API_VERSION = 'v1';

export function salud(): Reply {
  return { status: 200, body: { ok: true, name: SERVICE_NAME, version: API_VERSION } };
}
