// svc sandbox expirar <id>: POST /_sandbox/cobros/{id}/expirar (payer simulation).
import type { Context } from '../../context.js';
import { simulate } from '../../shared/simulate.js';

export function run(ctx: Context, args: string[]): Promise<void> {
  return simulate(ctx, 'expirar', args);
}
