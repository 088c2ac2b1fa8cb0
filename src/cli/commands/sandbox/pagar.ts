// svc sandbox pagar <id> [--monto M] [--medio X]: POST /_sandbox/cobros/{id}/pagar (payer simulation).
import type { Context } from '../../context.js';
import type { OptionsOf } from '../../define.js';
import { simulate } from '../../shared/simulate.js';
import type { pagarOptions } from './index.js';

export function run(
  ctx: Context,
  args: string[],
  opts: OptionsOf<typeof pagarOptions>,
): Promise<void> {
  return simulate(ctx, 'pagar', args, opts);
}
