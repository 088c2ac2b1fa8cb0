// svc sandbox iniciar <id>: POST /_sandbox/cobros/{id}/iniciar (payer simulation).
import type { Context } from '../../context.js';
import { simulate } from './simular.js';

export function run(ctx: Context, args: string[], opts: Record<string, unknown>): Promise<void> {
  return simulate(ctx, 'iniciar', args, opts);
}
