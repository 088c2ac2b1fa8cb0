// svc mcp: starts the MCP server (src/mcp/server.ts) over stdio or, with --http, on loopback.
import type { Context } from '../../context.js';
import type { OptionsOf } from '../../define.js';
import type { mcpOptions } from './index.js';

export async function run(
  ctx: Context,
  _args: string[],
  opts: OptionsOf<typeof mcpOptions>,
): Promise<void> {
  const { serve } = await import('../../../mcp/server.js');
  await serve(ctx, {
    http: opts.http,
    tokenArchivo: opts.tokenArchivo,
    registro: opts.registro,
    planes: opts.planes,
  });
}
