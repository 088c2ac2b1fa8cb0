// svc completion <shell>: prints the completion script generated from the command tree.
import type { Context } from '../../context.js';
import { parseChoice } from '../../parse.js';
import { completionScript, SHELLS } from '../../completion.js';
import { commands, groups } from '../../registry.js';

export async function run(ctx: Context, args: string[]): Promise<void> {
  const shell = parseChoice(args[0], SHELLS, 'shell')!;
  ctx.io.stdout.write(completionScript(shell, groups, commands));
}
