// svc perfil borrar <nombre>: removes a profile and its keys (asks first on a terminal; without one, only --yes removes it).
import type { Context } from '../../context.js';
import { UsageError } from '../../../errors.js';
import { printable } from '../../parse.js';

export async function run(ctx: Context, args: string[]): Promise<void> {
  const name = args[0] ?? '';
  const store = await ctx.store();
  const existing = store.read().profiles[name];
  if (!existing)
    throw new UsageError(
      `no existe el perfil "${printable(name)}"`,
      '`svc perfil listar` muestra los que hay',
    );
  // Removed only when confirmed: at a terminal, or with --yes (ctx.confirm refuses without one).
  if (!ctx.globals.yes) await ctx.confirm(`¿borrar el perfil "${printable(name)}" y sus claves?`);
  let inKeyring = false;
  await store.write((config) => {
    if (!config.profiles[name]) throw new UsageError(`no existe el perfil "${printable(name)}"`);
    inKeyring = config.profiles[name].live_key_in === 'keyring';
    const { [name]: _gone, ...profiles } = config.profiles;
    return { ...config, profiles, current: config.current === name ? undefined : config.current };
  });
  if (inKeyring) {
    const { forgetLiveKey } = await import('../../../config/keyring.js');
    const warning = await forgetLiveKey(ctx.env, store.path, name);
    if (warning) ctx.io.err(ctx.io.c.yellow(warning));
  }
  ctx.io.err(`perfil "${name}" borrado`);
}
