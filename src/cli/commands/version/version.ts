// svc version: exactly what --version prints; --json adds what a bug report needs.
import { VERSION } from '../../../version.js';
import { printJson } from '../../../output/format.js';
import type { Context } from '../../context.js';

export async function run(ctx: Context): Promise<void> {
  if (ctx.globals.json)
    return printJson(ctx.io, {
      version: VERSION,
      node: process.versions.node,
      platform: `${process.platform}-${process.arch}`,
    });
  ctx.io.out(VERSION);
}
