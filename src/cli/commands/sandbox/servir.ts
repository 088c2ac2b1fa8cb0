// svc sandbox: runs the whole service on loopback until SIGINT/SIGTERM. Prints where
// it listens, its keys and its signing secret (its job: the only place they are
// shown); with --json, exactly one line {base_url, api_key, api_key_no_listo,
// webhook_secret}. Then one line per request on stderr (method, path, status, time).
import type { Context } from '../../context.js';
import { ConfigError, UsageError } from '../../errors.js';

export const DEFAULT_PORT = 4010;

export interface ServeOptions {
  host: string;
  port: number;
  dataFile?: string;
  webhookUrl?: string;
  tz?: string;
  retrySchedule?: number[];
  readyDelayMs?: number;
}

/** Checks the flags; UsageError (exit 2) before anything starts. */
export function parseOptions(opts: Record<string, unknown>): ServeOptions {
  const out: ServeOptions = { host: '127.0.0.1', port: DEFAULT_PORT };
  if (opts.host !== undefined) {
    const host = String(opts.host).trim();
    if (!/^[A-Za-z0-9.:-]{1,253}$/.test(host)) throw new UsageError(`--host "${host}" no es una dirección válida (ej. 127.0.0.1)`);
    out.host = host;
  }
  if (opts.port !== undefined) out.port = integer(opts.port, '--port', 0, 65535);
  if (opts.data !== undefined) {
    const file = String(opts.data);
    if (file.trim() === '') throw new UsageError('--data necesita la ruta de un archivo');
    out.dataFile = file;
  }
  if (opts.webhookUrl !== undefined) {
    const url = String(opts.webhookUrl);
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      parsed = undefined;
    }
    const loopback = parsed && /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i.test(parsed.hostname);
    if (!parsed || !(parsed.protocol === 'https:' || (parsed.protocol === 'http:' && loopback))) {
      throw new UsageError(`--webhook-url "${url}" no sirve: tiene que ser https, o http hacia 127.0.0.1/localhost`);
    }
    out.webhookUrl = url;
  }
  if (opts.tz !== undefined) {
    const tz = String(opts.tz);
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: tz });
    } catch {
      throw new UsageError(`--tz "${tz}" no es una zona horaria conocida (ej. America/Argentina/Buenos_Aires, UTC)`);
    }
    out.tz = tz;
  }
  if (opts.retrySchedule !== undefined) {
    const text = String(opts.retrySchedule).trim();
    const parts = text === '' ? [] : text.split(',');
    if (parts.length > 20) throw new UsageError('--retry-schedule admite hasta 20 esperas');
    out.retrySchedule = parts.map((p) => integer(p.trim(), '--retry-schedule', 0, 3_600_000));
  }
  if (opts.readyDelay !== undefined) out.readyDelayMs = integer(opts.readyDelay, '--ready-delay', 0, 600_000);
  return out;
}

function integer(value: unknown, flag: string, min: number, max: number): number {
  const s = String(value).trim();
  if (!/^[0-9]{1,9}$/.test(s) || Number(s) < min || Number(s) > max) {
    throw new UsageError(`${flag} "${s}" no es válido (entero entre ${min} y ${max})`);
  }
  return Number(s);
}

export async function run(ctx: Context, _args: string[], opts: Record<string, unknown>): Promise<number> {
  const options = parseOptions(opts);
  const signal = ctx.holdSignals();
  const { io } = ctx;
  const { startSandbox, SandboxStartError, DEFAULT_RETRY_SCHEDULE } = await import('../../../sandbox/index.js');
  const json = ctx.globals.json;
  let sandbox;
  try {
    sandbox = await startSandbox({
      ...options,
      onRequest: json
        ? undefined
        : (e) => io.err(io.c.dim(`${e.fecha}  ${e.method.padEnd(6)} ${e.path}  ${e.status ?? 'cortada'}  ${e.ms} ms`)),
      // Start-up notices about the data file (a cut tail set aside, compaction) go to stderr, also with --json.
      onNotice: (text) => io.err(`${io.c.yellow('aviso:')} ${text}`),
      onError: (err) => {
        io.err(`${io.c.red('error interno del sandbox:')} ${err instanceof Error ? err.message : String(err)}`);
        if (ctx.globals.debug && err instanceof Error && err.stack) io.err(io.c.dim(err.stack));
      },
    });
  } catch (err) {
    if (err instanceof SandboxStartError) throw new ConfigError(err.message);
    throw err;
  }

  if (json) {
    io.out(
      JSON.stringify({
        base_url: sandbox.baseUrl,
        api_key: sandbox.apiKey,
        api_key_no_listo: sandbox.apiKeyNoListo,
        webhook_secret: sandbox.webhookSecret,
      }),
    );
  } else {
    const c = io.c;
    const schedule = options.retrySchedule ?? DEFAULT_RETRY_SCHEDULE;
    io.out(`${c.green('●')} Sandbox de svc escuchando en ${c.bold(sandbox.baseUrl)}`);
    io.out('');
    io.out(`  clave de test (comercio listo)     ${sandbox.apiKey}`);
    io.out(`  clave de test (comercio no listo)  ${sandbox.apiKeyNoListo}`);
    io.out(`  secreto de notificaciones          ${sandbox.webhookSecret}`);
    io.out(`  datos                              ${options.dataFile ? options.dataFile : 'en memoria (se pierden al salir; --data para guardarlos)'}`);
    io.out(`  notificaciones                     ${options.webhookUrl ?? 'sin URL (--webhook-url, o POST /_sandbox/webhook)'}`);
    io.out(`  reintentos                         ${schedule.length} (esperas ${schedule.join(', ')} ms)`);
    io.out('');
    io.out('Para usarlo desde otra terminal:');
    io.out(`  export SVC_BASE_URL=${sandbox.baseUrl} SVC_API_KEY=${sandbox.apiKey} SVC_WEBHOOK_SECRET=${sandbox.webhookSecret}`);
    io.out('  svc cobro crear --concepto "Pedido 1042" --monto 1500.00');
    io.out('  svc sandbox pagar 1');
    io.out('');
    io.err(c.dim('Ctrl-C para detener.'));
  }

  await new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
  if (!json) io.err(c2(ctx, 'deteniendo: terminando los pedidos en curso…'));
  await sandbox.close();
  if (!json) io.err(c2(ctx, 'sandbox detenido.'));
  return 0;
}

function c2(ctx: Context, text: string): string {
  return ctx.io.c.dim(text);
}
