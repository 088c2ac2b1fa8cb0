// svc perfil listar: the stored profiles; keys shown only as svc_test_…last4, addresses
// without their userinfo (a password in `https://user:pass@host` is a secret too).
import { shownAddress } from '../../../api/address.js';
import type { Context } from '../../context.js';
import { maskKey, printJson, printTable } from '../../../output/format.js';

interface Row {
  name: string;
  current: boolean;
  base_url: string | null;
  test_key: string | null;
  live_key: string | null;
  webhook_secret: boolean;
}

export async function run(ctx: Context): Promise<void> {
  const store = await ctx.store();
  const config = store.read();
  const active = (await ctx.resolved()).profileName.value;
  const rows: Row[] = Object.entries(config.profiles).map(([name, p]) => ({
    name,
    current: name === active,
    base_url: shownAddress(p.base_url ?? null),
    test_key: p.test_key ? maskKey(p.test_key) : null,
    live_key: p.live_key
      ? maskKey(p.live_key)
      : p.live_key_in === 'keyring'
        ? 'en el llavero'
        : null,
    webhook_secret: Boolean(p.webhook_secret),
  }));
  if (ctx.globals.json) return printJson(ctx.io, rows);
  await printTable(
    ctx.io,
    [
      { header: '', value: (r) => (r.current ? '*' : '') },
      { header: 'PERFIL', value: (r) => r.name },
      { header: 'DIRECCIÓN', value: (r) => r.base_url ?? '-', shrink: true },
      { header: 'CLAVE TEST', value: (r) => r.test_key ?? '-' },
      { header: 'CLAVE LIVE', value: (r) => r.live_key ?? '-' },
      { header: 'SECRETO', value: (r) => (r.webhook_secret ? 'sí' : 'no') },
    ],
    rows,
    'no hay perfiles: `svc login` crea uno',
  );
}
