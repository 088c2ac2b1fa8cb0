// svc perfil borrar <nombre>: removes a profile and its keys.
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';

export async function run(ctx: Context, args: string[]): Promise<void> {
  const name = args[0] ?? '';
  const store = await ctx.store();
  await store.write((config) => {
    if (!config.profiles[name]) throw new UsageError(`no existe el perfil "${name}"`);
    const { [name]: _gone, ...profiles } = config.profiles;
    return { ...config, profiles, current: config.current === name ? undefined : config.current };
  });
  ctx.io.err(`perfil "${name}" borrado`);
}
