// svc logout: forgets the keys and signing secret of the profile (the address stays).
import type { Context } from '../context.js';

export async function run(ctx: Context): Promise<void> {
  const store = await ctx.store();
  const name = (await ctx.resolved()).profileName.value;
  let had = false;
  await store.write((config) => {
    const profile = config.profiles[name];
    if (!profile) return config;
    had = Boolean(profile.test_key || profile.live_key || profile.webhook_secret);
    const { test_key: _t, live_key: _l, webhook_secret: _w, ...rest } = profile;
    return { ...config, profiles: { ...config.profiles, [name]: rest } };
  });
  ctx.io.err(had ? `claves del perfil "${name}" borradas` : `el perfil "${name}" no tenía claves guardadas`);
}
