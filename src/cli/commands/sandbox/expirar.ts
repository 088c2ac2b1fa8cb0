// svc sandbox expirar <id>: POST /_sandbox/cobros/{id}/expirar (payer simulation).
import type { Context } from '../../context.js';
import { simulate } from './simular.js';

export function run(ctx: Context, args: string[], opts: Record<string, unknown>): Promise<void> {
  return simulate(ctx, 'expirar', args, opts);
}
