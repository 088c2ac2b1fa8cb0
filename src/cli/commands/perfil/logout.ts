// svc logout: forgets the keys and signing secret of the profile (the address stays);
// asks first on a terminal; without one (`echo | svc logout`, a script) only --yes forgets them.
import type { Context } from '../../context.js';

export async function run(ctx: Context): Promise<void> {
  const store = await ctx.store();
  const resolved = await ctx.resolved();
  // A profile named that does not exist is a typo to point out, not "nothing to forget".
  const { checkProfileExists } = await import('../../../config/credentials.js');
  checkProfileExists(resolved);
  const name = resolved.profileName.value;
  const profile = store.read().profiles[name];
  const keys = Boolean(
    profile &&
    (profile.test_key || profile.live_key || profile.live_key_in || profile.webhook_secret),
  );
  // Keys are forgotten only when confirmed: at a terminal, or with --yes (ctx.confirm refuses without one).
  if (keys && !ctx.globals.yes)
    await ctx.confirm(`¿borrar las claves y el secreto del perfil "${name}"?`);
  let had = false;
  let inKeyring = false;
  await store.write((config) => {
    const profile = config.profiles[name];
    if (!profile) return config;
    had = Boolean(
      profile.test_key || profile.live_key || profile.live_key_in || profile.webhook_secret,
    );
    inKeyring = profile.live_key_in === 'keyring';
    const { test_key: _t, live_key: _l, live_key_in: _i, webhook_secret: _w, ...rest } = profile;
    return { ...config, profiles: { ...config.profiles, [name]: rest } };
  });
  if (inKeyring) {
    const { forgetLiveKey } = await import('../../../config/keyring.js');
    const warning = await forgetLiveKey(ctx.env, store.path, name);
    if (warning) ctx.io.err(ctx.io.c.yellow(warning));
  }
  ctx.io.err(
    had ? `claves del perfil "${name}" borradas` : `el perfil "${name}" no tenía claves guardadas`,
  );
}
