// svc sandbox iniciar <id>: POST /_sandbox/cobros/{id}/iniciar (payer simulation).
import type { Context } from '../../context.js';
import { simulate } from '../../shared/simulate.js';

export function run(ctx: Context, args: string[]): Promise<void> {
  return simulate(ctx, 'iniciar', args);
}
