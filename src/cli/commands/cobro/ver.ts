// svc cobro ver <id|código> | --referencia <texto>: GET /v1/cobros/{id}, or the request
// whose code or reference is exactly the one given (shared/find-cobro.ts).
import { printJson, printRecord } from '../../../output/format.js';
import { pairsOf } from '../../../output/resources.js';
import type { Context } from '../../context.js';
import type { OptionsOf } from '../../define.js';
import { cobroNamed, parseCobroRef } from '../../shared/find-cobro.js';
import type { verOptions } from './index.js';

export async function run(ctx: Context, args: string[], opts: OptionsOf<typeof verOptions>): Promise<void> {
  const ref = parseCobroRef(args[0], opts.referencia);
  const client = await ctx.client();
  const cobro = await cobroNamed(ctx, client, ref);
  if (ctx.globals.json) return printJson(ctx.io, cobro);
  printRecord(ctx.io, pairsOf(cobro));
}
