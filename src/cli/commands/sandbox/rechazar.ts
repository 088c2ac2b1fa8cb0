// svc sandbox rechazar <id>: POST /_sandbox/cobros/{id}/rechazar (payer simulation).
import type { Context } from '../../context.js';
import { simulate } from '../../shared/simulate.js';

export function run(ctx: Context, args: string[]): Promise<void> {
  return simulate(ctx, 'rechazar', args);
}
