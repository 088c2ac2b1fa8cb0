// svc perfil usar <nombre>: makes a stored profile the default.
import type { Context } from '../../context.js';
import { UsageError } from '../../../errors.js';

export async function run(ctx: Context, args: string[]): Promise<void> {
  const name = args[0] ?? '';
  const store = await ctx.store();
  await store.write((config) => {
    if (!config.profiles[name]) {
      const known = Object.keys(config.profiles);
      throw new UsageError(
        `no existe el perfil "${name}"${known.length ? `; perfiles: ${known.join(', ')}` : ''}`,
      );
    }
    return { ...config, current: name };
  });
  ctx.io.err(`perfil por defecto: ${name}`);
}
