// svc login: validates a key with GET /v1/cuenta and stores it in a profile.
// The key never comes from a flag (shell history): hidden prompt or --with-key-stdin.
import type { Context } from '../../context.js';
import { prompt, promptStreams } from '../../context.js';
import { UsageError } from '../../../errors.js';
import { readAll } from '../../stdin.js';
import { isLoopbackHost, KEY_RE, keyMode } from '../../../domain/rules.js';
import { knownZone } from '../../../domain/dates.js';
import { DEFAULTS } from '../../../defaults.js';
import { printable } from '../../parse.js';
import { PROFILE_NAME } from '../../../config/profiles.js';
import { maskKey, printJson } from '../../../output/format.js';
import { shown } from '../../../text.js';
import { checkBaseUrl, InsecureBaseUrlError, type Client } from '../../../api/client.js';
import { shownAddress } from '../../../api/address.js';
import type { OptionsOf } from '../../define.js';
import type { loginOptions } from './index.js';

export async function run(
  ctx: Context,
  _args: string[],
  opts: OptionsOf<typeof loginOptions>,
): Promise<void> {
  const { io, globals } = ctx;
  const store = await ctx.store();
  const resolved = await ctx.resolved();
  const profileName = resolved.profileName.value;
  if (!PROFILE_NAME.test(profileName)) {
    throw new UsageError(
      `nombre de perfil inválido: "${profileName}" (letras, números, . _ -; hasta 64)`,
    );
  }

  let key: string | undefined;
  let secret: string | undefined;
  if (opts.withKeyStdin || opts.webhookSecretStdin) {
    const lines = (await readAll(io.stdin, 64 * 1024)).toString('utf8').split(/\r?\n/);
    if (opts.withKeyStdin) key = lines.shift()?.trim();
    if (opts.webhookSecretStdin) secret = lines.shift()?.trim();
    if (opts.withKeyStdin && !key)
      throw new UsageError(
        '--with-key-stdin: stdin está vacío; pasá la clave por la entrada estándar',
      );
    if (opts.webhookSecretStdin && !secret)
      throw new UsageError('--webhook-secret-stdin: falta el secreto de firma en stdin');
  }

  // --webhook-secret-stdin alone: the secret joins a profile that already has its key.
  if (secret && !opts.withKeyStdin) return addSecret(ctx, profileName, secret);

  let baseUrl = resolved.baseUrl?.value;
  if (!baseUrl) {
    if (!io.canPrompt) {
      throw new UsageError(
        'falta la dirección del servicio: usá --base-url https://… (o SVC_BASE_URL)',
        'para probar sin cuenta: `svc sandbox`',
      );
    }
    const { input } = await import('@inquirer/prompts');
    // A typo is asked again with what is wrong, never the end of the login.
    baseUrl = await prompt(() =>
      input(
        {
          message: 'Dirección del servicio (https://…):',
          required: true,
          validate: addressProblem,
        },
        promptStreams(io),
      ),
    );
  }
  try {
    baseUrl = checkBaseUrl(baseUrl.trim());
  } catch (err) {
    if (err instanceof InsecureBaseUrlError) throw new UsageError(err.message);
    throw err;
  }

  if (!key) {
    if (!io.canPrompt)
      throw new UsageError(`${io.noPromptWhy} no se pide la clave: usá --with-key-stdin`);
    const { password } = await import('@inquirer/prompts');
    // The prefix is checked as typed: a wrong key is asked again, not the end of the login after the secret.
    key = (
      await prompt(() =>
        password(
          {
            message: 'Clave (svc_test_… o svc_live_…):',
            mask: '*',
            validate: (typed) => KEY_RE.test(typed.trim()) || KEY_FORMAT,
          },
          promptStreams(io),
        ),
      )
    ).trim();
    if (!opts.webhookSecretStdin) {
      const s = await prompt(() =>
        password(
          {
            message: 'Secreto de firma de notificaciones (opcional, Enter para omitir):',
            mask: '*',
          },
          promptStreams(io),
        ),
      );
      secret = s.trim() || undefined;
    }
  }
  if (!KEY_RE.test(key)) {
    throw new UsageError(`${KEY_FORMAT}; no se envió nada`);
  }
  const mode = keyMode(key)!;

  const zonaFlag = opts.zona === undefined ? undefined : checkZone(opts.zona);
  const client = await ctx.clientFor(baseUrl, key);
  const { data } = await ctx.spin('validando la clave…', () => client.cuenta());
  const cuenta = data.data;
  // One clock: the zone the service's dates are in. A sandbox says its own.
  const zona = zonaFlag ?? (await sandboxZone(client)) ?? DEFAULTS.timeZone;

  // A live key goes to the OS keyring when one answers, else to the 0600 file;
  // either way one line on stderr says where it went.
  let liveInKeyring = false;
  let keyringProblem = '';
  if (mode === 'live') {
    const { keyring, liveKeyAccount } = await import('../../../config/keyring.js');
    const answer = await ctx.spin('guardando la clave en el llavero del sistema…', () =>
      keyring(ctx.env, liveKeyAccount(store.path, profileName), { op: 'set', secret: key }),
    );
    liveInKeyring = answer.ok;
    if (!answer.ok) keyringProblem = answer.reason;
  }

  // --proxy and --cacert given at login stay in the profile ("" removes them), as the
  // address does: the office's settings for every later command of that profile.
  const { resolve: absolute } = await import('node:path');
  const network: { proxy?: string; ca_file?: string } = {};
  if (globals.proxy?.trim()) network.proxy = globals.proxy.trim();
  if (globals.cacert?.trim()) network.ca_file = absolute(globals.cacert.trim());
  await store.write((config) => {
    const {
      live_key,
      live_key_in,
      zona: _oldZone,
      proxy: oldProxy,
      ca_file: oldCa,
      ...current
    } = config.profiles[profileName] ?? {};
    const kept = {
      ...(globals.proxy === undefined && oldProxy ? { proxy: oldProxy } : {}),
      ...(globals.cacert === undefined && oldCa ? { ca_file: oldCa } : {}),
      ...network,
    };
    const live =
      mode === 'test'
        ? { live_key, live_key_in }
        : liveInKeyring
          ? { live_key_in: 'keyring' as const }
          : { live_key: key };
    return {
      ...config,
      current: config.current ?? profileName,
      profiles: {
        ...config.profiles,
        [profileName]: {
          ...current,
          ...live,
          base_url: baseUrl,
          ...(mode === 'test' ? { test_key: key } : {}),
          ...(secret ? { webhook_secret: secret } : {}),
          ...(zona === DEFAULTS.timeZone ? {} : { zona }),
          ...kept,
        },
      },
    };
  });

  const where =
    mode !== 'live'
      ? undefined
      : liveInKeyring
        ? `la clave live quedó en el llavero del sistema (servicio "svc"), no en ${store.path}`
        : io.c.yellow(
            `sin llavero del sistema (${keyringProblem}): la clave live quedó en ${store.path} (permisos 0600)`,
          );
  if (globals.json) {
    if (where) io.err(where);
    // The address as shown: a password in it stays in the 0600 config file only.
    printJson(io, {
      profile: profileName,
      base_url: shownAddress(baseUrl),
      mode,
      key: maskKey(key),
      key_store: liveInKeyring ? 'keyring' : 'file',
      zona,
      cuenta,
    });
    return;
  }
  // Who, then where: two lines, each within 80 columns for usual names.
  io.err(
    `${io.c.green('✓')} sesión iniciada como ${shown(cuenta.nombre, 80)} <${shown(cuenta.email, 80)}>`,
  );
  io.err(`  perfil ${io.c.bold(profileName)} · clave ${maskKey(key)} · ${shownAddress(baseUrl)}`);
  if (where) io.err(where);
  if (zona !== DEFAULTS.timeZone)
    io.err(`fechas en la zona ${zona}${zonaFlag ? '' : ' (la del sandbox)'}`);
  if (secret) io.err('secreto de firma guardado');
  if (network.proxy) io.err(`proxy guardado en el perfil: ${shownAddress(network.proxy)}`);
  if (network.ca_file) io.err(`certificados guardados en el perfil: ${network.ca_file}`);
  if (!cuenta.puede_cobrar)
    io.err(
      io.c.yellow('esta cuenta todavía no puede crear cobros (puede_cobrar: no); ver `svc cuenta`'),
    );
}

const KEY_FORMAT = 'la clave no tiene el formato svc_test_… o svc_live_…';

/** Stores a signing secret in an existing profile that has a key; nothing else changes. */
async function addSecret(ctx: Context, profileName: string, secret: string): Promise<void> {
  const store = await ctx.store();
  const profile = store.read().profiles[profileName];
  if (!profile || !(profile.test_key || profile.live_key || profile.live_key_in)) {
    throw new UsageError(
      `el perfil "${profileName}" ${profile ? 'no tiene clave' : 'no existe'}: el secreto solo se agrega a un perfil con clave`,
      'pasá la clave y el secreto en dos líneas: svc login --with-key-stdin --webhook-secret-stdin',
    );
  }
  await store.write((config) => {
    const current = config.profiles[profileName];
    if (!current) throw new UsageError(`el perfil "${profileName}" ya no existe`);
    return {
      ...config,
      profiles: { ...config.profiles, [profileName]: { ...current, webhook_secret: secret } },
    };
  });
  if (ctx.globals.json) printJson(ctx.io, { profile: profileName, webhook_secret: true });
  else
    ctx.io.err(
      `${ctx.io.c.green('✓')} secreto de firma guardado en el perfil ${ctx.io.c.bold(profileName)} (la clave no cambió)`,
    );
}

function checkZone(text: string): string {
  const tz = text.trim();
  if (!knownZone(tz))
    throw new UsageError(
      `--zona "${printable(tz, 60)}" no es una zona horaria conocida (ej. ${DEFAULTS.timeZone}, UTC)`,
    );
  return tz;
}

/** The zone of a `svc sandbox` (its clock says it); undefined for any other service. */
async function sandboxZone(client: Client): Promise<string | undefined> {
  if (!isLoopbackHost(new URL(client.baseUrl).hostname)) return undefined;
  try {
    const { SandboxControl } = await import('../../shared/sandbox-control.js');
    const tz = (await new SandboxControl(client).reloj()).tz;
    return typeof tz === 'string' && knownZone(tz) ? tz : undefined;
  } catch {
    return undefined;
  }
}

/** What is wrong with a typed address, with a hint when the scheme is missing; true when it is fine. */
export function addressProblem(typed: string): true | string {
  const text = typed.trim();
  try {
    checkBaseUrl(text);
    return true;
  } catch (err) {
    if (!(err instanceof InsecureBaseUrlError)) throw err;
    // checkBaseUrl says what a schemeless address lacks (http:// for this machine, https:// else).
    return err.message;
  }
}
