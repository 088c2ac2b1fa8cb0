// svc demo: placeholder until the sandbox and the listener land (see issue 6).
import type { Context } from '../context.js';
import { CliError } from '../errors.js';

export async function run(_ctx: Context): Promise<void> {
  throw new CliError('svc demo todavía no está disponible', 1);
}
