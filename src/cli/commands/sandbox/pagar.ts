// svc sandbox pagar <id>: POST /_sandbox/cobros/{id}/pagar (payer simulation).
import type { Context } from '../../context.js';
import { simulate } from './simular.js';

export function run(ctx: Context, args: string[], opts: Record<string, unknown>): Promise<void> {
  return simulate(ctx, 'pagar', args, opts);
}
