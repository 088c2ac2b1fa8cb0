// A key that a `svc sandbox` on this machine does not know. A sandbox started without
// --data makes new keys each time, so after a restart the key in SVC_API_KEY or the
// profile is one of a sandbox that is gone: "unauthorized" alone sends the person to
// check a key that was right. Loaded only when a command failed with a 401.
import { UnauthorizedError } from '../api/service-errors.js';
import { CliError, EXIT } from '../errors.js';
import { isLoopbackHost, SANDBOX_SERVICE_NAME } from '../domain/rules.js';
import type { Context, KeyInUse } from './context.js';

/** A key as `svc sandbox` makes them (sandbox/store.ts): 16 random bytes in hex; a typo rarely keeps that shape. */
const MADE_BY_A_SANDBOX = /^svc_(test|live)_[0-9a-f]{32}$/;

/**
 * `err` as the person should read it: a refused key of the kind a sandbox makes, sent
 * to a loopback address whose health check names a svc sandbox, is a sandbox that was
 * restarted with new keys (exit 3, `sandbox_new_keys`), with the line that fixes it.
 * Anything else is `err` unchanged.
 */
export async function explainRefusedKey(err: unknown, ctx: Context): Promise<unknown> {
  const used = ctx.keyInUse;
  if (!(err instanceof UnauthorizedError) || !used) return err;
  if (!MADE_BY_A_SANDBOX.test(used.key)) return err;
  let host: string;
  try {
    host = new URL(used.baseUrl).hostname;
  } catch {
    return err;
  }
  if (!isLoopbackHost(host)) return err;
  try {
    const client = await ctx.clientFor(used.baseUrl);
    const { data } = await client.salud();
    if ((data as { name?: unknown }).name !== SANDBOX_SERVICE_NAME) return err;
  } catch {
    return err;
  }
  const where = used.source === 'env' ? 'SVC_API_KEY' : `el perfil "${used.profile}"`;
  return new CliError(
    `el sandbox de ${used.baseUrl} no conoce la clave de ${where}: se reinició sin --data y tiene claves nuevas`,
    {
      exit: EXIT.unauthorized,
      code: 'sandbox_new_keys',
      hint: fixLine(used),
    },
  );
}

/** The command that puts the new key where the old one was, and how to keep keys across restarts. */
function fixLine(used: KeyInUse): string {
  const kind = used.mode === 'live' ? 'la clave live de ensayo' : 'la clave test';
  const keep = 'con `svc sandbox --data ARCHIVO` las claves sobreviven a un reinicio';
  if (used.source === 'env') {
    const name = used.mode === 'live' ? 'svc_live_…' : 'svc_test_…';
    return `corré \`export SVC_API_KEY=${name}\` con ${kind} que imprimió \`svc sandbox\` al arrancar; ${keep}`;
  }
  const profile = used.profile === 'default' ? '' : ` --profile ${used.profile}`;
  return `corré \`svc login --base-url ${used.baseUrl}${profile}\` y pegá ${kind} que imprimió \`svc sandbox\` al arrancar; ${keep}`;
}
