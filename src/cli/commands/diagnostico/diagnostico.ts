// svc diagnostico: what a person pastes into a support ticket. What svc would use
// and where each setting came from (flag, environment, profile), then whether it
// works: the service's /v1/salud, an authenticated /v1/cuenta, each with its time,
// and the clock against the service's Date header. Every line that fails says what
// to do. Nothing secret is printed: the key as its last four characters, the proxy
// and the address without their credentials, the signing secret as present or not.
// Exit 0 when everything works, 6 when the service cannot be reached, 1 otherwise.
import { performance } from 'node:perf_hooks';
import { shownAddress } from '../../../api/address.js';
import { NetworkError } from '../../../api/service-errors.js';
import type { Resolved, Source } from '../../../config/resolve.js';
import { DEFAULTS } from '../../../defaults.js';
import { EXIT, Reported } from '../../../errors.js';
import { printJson, printRecord } from '../../../output/format.js';
import { shown } from '../../../text.js';
import type { Colors } from '../../../output/io.js';
import { VERSION } from '../../../version.js';
import type { Context } from '../../context.js';
import { hintFor, networkLine } from '../../hints.js';

interface Check {
  ok: boolean;
  ms?: number;
  /** What went wrong and what to do, when it failed. */
  error?: string;
}

/** Where a setting came from, in words: the flag, the variable, the profile. */
function origin(source: Source, flag: string, variable: string): string {
  switch (source) {
    case 'flag':
      return flag;
    case 'env':
      return variable;
    case 'profile':
      return 'perfil';
    case 'keyring':
      return 'llavero del sistema';
    default:
      return 'por defecto';
  }
}

/** A failure as one line: svc's message and, when it knows one, what to do. */
function failure(err: unknown): string {
  const message =
    err instanceof NetworkError
      ? networkLine(err)
      : err instanceof Error
        ? err.message
        : String(err);
  const hint = err instanceof NetworkError ? err.suggestion : hintFor(err);
  return hint ? `${message} → ${hint}` : message;
}

type Style = (s: string, c: Colors) => string;

const elapsed = (started: number) => Math.round(performance.now() - started);

export async function run(ctx: Context): Promise<void> {
  const { io, env } = ctx;
  const r: Resolved = await ctx.resolved();
  const store = await ctx.store();
  const network = await ctx.network();
  const problems: string[] = [];

  const profile = {
    name: r.profileName.value,
    from: origin(r.profileName.source, '--profile', 'SVC_PROFILE'),
    exists: Boolean(r.profile) || r.profileName.source === 'default',
  };
  if (!profile.exists)
    problems.push(
      `el perfil "${profile.name}" no existe → \`svc perfil listar\` muestra los que hay`,
    );

  const baseUrl = r.baseUrl
    ? {
        value: shownAddress(r.baseUrl.value),
        from: origin(r.baseUrl.source, '--base-url', 'SVC_BASE_URL'),
      }
    : null;
  if (!baseUrl)
    problems.push(
      'no hay dirección del servicio → corré `svc login --base-url https://…` o definí SVC_BASE_URL',
    );

  // The key by its kind and last four characters only.
  const keyValue = r.apiKey?.value;
  const key = r.apiKey
    ? {
        mode: r.mode,
        last4: keyValue!.slice(-4),
        from: origin(r.apiKey.source, '--live', 'SVC_API_KEY'),
      }
    : r.liveKeyInKeyring
      ? { mode: 'live' as const, last4: null, from: 'llavero del sistema' }
      : null;
  const keyStore = r.profile?.live_key_in === 'keyring' ? 'llavero del sistema' : 'archivo';

  let proxyShown: { value: string; from: string; used: boolean } | null = null;
  let proxyProblem: string | undefined;
  const target = baseUrl ? new URL(r.baseUrl!.value) : undefined;
  try {
    const configured = network.configured(target?.protocol ?? 'https:');
    if (configured) {
      const used = target ? network.route(target) !== undefined : true;
      proxyShown = { value: configured.shown, from: configured.from, used };
    }
  } catch (err) {
    proxyProblem = (err as Error).message;
    problems.push(proxyProblem);
  }
  const ca = network.ca;
  const extraCa = env.NODE_EXTRA_CA_CERTS?.trim() || undefined;

  // The service, without a key and then with it.
  let salud: Check | null = null;
  let cuenta: (Check & { nombre?: string; puede_cobrar?: boolean }) | null = null;
  let clockSkew: number | null = null;
  if (baseUrl && !proxyProblem) {
    try {
      const client = await ctx.client({ requireKey: false });
      const started = performance.now();
      try {
        const res = await client.request({ method: 'GET', path: '/v1/salud', retry: false });
        const ms = elapsed(started);
        salud = { ok: true, ms };
        const date = res.headers.date;
        const served = Date.parse(Array.isArray(date) ? date[0]! : (date ?? ''));
        // The Date header has whole seconds: compared with the middle of the request.
        if (!Number.isNaN(served)) clockSkew = Math.round((Date.now() - ms / 2 - served) / 1000);
      } catch (err) {
        salud = { ok: false, ms: elapsed(started), error: failure(err) };
        problems.push(`servicio: ${salud.error}`);
      }
    } catch (err) {
      salud = { ok: false, error: failure(err) };
      problems.push(`servicio: ${salud.error}`);
    }
    if (salud.ok) {
      try {
        const client = await ctx.client();
        const started = performance.now();
        const { data } = await client.cuenta();
        cuenta = {
          ok: true,
          ms: elapsed(started),
          nombre: data.data.nombre,
          puede_cobrar: data.data.puede_cobrar,
        };
      } catch (err) {
        cuenta = { ok: false, error: failure(err) };
        problems.push(`cuenta: ${cuenta.error}`);
      }
    }
  }
  const skewTooLarge = clockSkew !== null && Math.abs(clockSkew) > DEFAULTS.toleranceSeconds;
  if (skewTooLarge)
    problems.push(
      `el reloj de esta máquina difiere ${clockSkew} s del servicio: las firmas de las notificaciones no se aceptarían (tolerancia ${DEFAULTS.toleranceSeconds} s) → sincronizá la hora`,
    );

  const secret = r.webhookSecret
    ? { present: true, from: origin(r.webhookSecret.source, '', 'SVC_WEBHOOK_SECRET') }
    : { present: false, from: null };

  const unreachable = salud !== null && !salud.ok;
  if (ctx.globals.json) {
    printJson(io, {
      version: VERSION,
      node: process.version,
      profile,
      base_url: baseUrl,
      key,
      key_store: keyStore,
      config_file: store.path,
      proxy: proxyShown,
      no_proxy: network.noProxy ?? null,
      ca: ca ? { file: ca.file, from: ca.from } : null,
      node_extra_ca_certs: extraCa ?? null,
      salud,
      cuenta,
      clock_skew_seconds: clockSkew,
      webhook_secret: secret,
      problems,
    });
  } else {
    const bad: Style = (v, c) => c.red(v);
    const good: Style = (v, c) => c.green(v);
    const check = (c: Check | null, okText: string): [string, Style | undefined] =>
      c === null ? ['no se probó', undefined] : c.ok ? [okText, good] : [`falla: ${c.error}`, bad];
    const [saludText, saludStyle] = check(salud, `ok en ${salud?.ms} ms (/v1/salud)`);
    const [cuentaText, cuentaStyle] = check(
      cuenta,
      `ok en ${cuenta?.ms} ms: ${shown(cuenta?.nombre ?? '')}${cuenta?.puede_cobrar ? '' : ' (todavía no puede cobrar)'}`,
    );
    printRecord(io, [
      ['svc', `${VERSION} (Node ${process.version})`],
      [
        'perfil',
        `${profile.name} (${profile.from})${profile.exists ? '' : ': no existe → `svc perfil listar` muestra los que hay'}`,
        profile.exists ? undefined : bad,
      ],
      [
        'dirección',
        baseUrl
          ? `${baseUrl.value} (${baseUrl.from})`
          : 'ninguna → `svc login --base-url https://…` o SVC_BASE_URL',
        baseUrl ? undefined : bad,
      ],
      [
        'clave',
        key
          ? `${key.mode} ${key.last4 ? `…${key.last4}` : '(en el llavero)'} (${key.from})`
          : 'ninguna → `svc login` o SVC_API_KEY',
        key ? undefined : bad,
      ],
      ['claves en', `${keyStore} (${store.path})`],
      [
        'proxy',
        proxyProblem
          ? proxyProblem
          : proxyShown
            ? `${proxyShown.value} (${proxyShown.from})${proxyShown.used ? '' : ', no se usa para esta dirección'}`
            : 'ninguno',
        proxyProblem ? bad : undefined,
      ],
      [
        'certificados',
        [ca ? `${ca.file} (${ca.from})` : '', extraCa ? `${extraCa} (NODE_EXTRA_CA_CERTS)` : '']
          .filter(Boolean)
          .join(' + ') || 'los de Node',
      ],
      ['servicio', saludText, saludStyle],
      ['cuenta', cuentaText, cuentaStyle],
      [
        'reloj',
        clockSkew === null
          ? 'no se comparó'
          : `${clockSkew > 0 ? '+' : ''}${clockSkew} s respecto del servicio${skewTooLarge ? ' → sincronizá la hora' : ''}`,
        skewTooLarge ? bad : undefined,
      ],
      [
        'secreto de firma',
        secret.present
          ? `configurado (${secret.from})`
          : 'no configurado (solo hace falta para webhook) → SVC_WEBHOOK_SECRET o `svc login --webhook-secret-stdin`',
      ],
    ]);
  }
  if (unreachable) throw new Reported(EXIT.network);
  if (problems.length > 0) throw new Reported(EXIT.refused);
}
