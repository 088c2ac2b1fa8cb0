// svc sandbox: runs the whole service on loopback until SIGINT/SIGTERM. Prints where
// it listens, its keys and its signing secret (its job: the only place they are
// shown); with --json, exactly one line {base_url, api_key, api_key_no_listo,
// api_key_live, webhook_secret}. Then one line per request on stderr (method, path, status, time).
import { isLoopbackHost } from '../../../domain/rules.js';
import type { Context } from '../../context.js';
import type { OptionsOf } from '../../define.js';
import { DEFAULTS } from '../../../defaults.js';
import { ConfigError, UsageError } from '../../../errors.js';
import {
  parseFilePath,
  parseHost,
  parseChoice,
  parseInteger,
  parsePort,
  parseUrl,
  printable,
} from '../../parse.js';
import { readFileArg } from '../../shared/webhook.js';
import type { sandboxOptions } from './index.js';

type Options = OptionsOf<typeof sandboxOptions>;

export interface ServeOptions {
  host: string;
  port: number;
  dataFile?: string;
  webhookUrl?: string;
  tz?: string;
  retrySchedule?: number[];
  readyDelayMs?: number;
  /** --por-pagina: lists answered in pages of this many items (0: whole; unset: the default). */
  pageSize?: number;
  /** --comprimir: every /v1 answer compressed with this coding. */
  compress?: import('../../../sandbox/app.js').Coding;
  /** --campos-extra, --fechas-con-zona, --estados-nuevos: what a real service may send within the seed. */
  latitude?: import('../../../sandbox/latitude.js').Latitude;
  /** --generar: a year of this many requests to start with. */
  generate?: number;
  /** --escenario: the known state to start with (checked before anything starts). */
  escenario?: { file: string; scenario: import('../../../sandbox/scenario.js').Scenario };
}

/** Checks the flags; UsageError (exit 2) before anything starts. */
export async function parseOptions(opts: Options): Promise<ServeOptions> {
  const out: ServeOptions = { host: DEFAULTS.host, port: DEFAULTS.sandboxPort };
  if (opts.host !== undefined) out.host = parseHost(opts.host);
  if (opts.port !== undefined) out.port = parsePort(opts.port);
  if (opts.data !== undefined) out.dataFile = parseFilePath(opts.data, '--data');
  if (opts.webhookUrl !== undefined)
    out.webhookUrl = parseUrl(opts.webhookUrl, '--webhook-url', 'notify');
  if (opts.tz !== undefined) {
    const tz = opts.tz;
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: tz });
    } catch {
      throw new UsageError(
        `--tz "${printable(tz)}" no es una zona horaria conocida (ej. America/Argentina/Buenos_Aires, UTC)`,
      );
    }
    out.tz = tz;
  }
  if (opts.retrySchedule !== undefined) {
    const text = opts.retrySchedule.trim();
    const parts = text === '' ? [] : text.split(',');
    if (parts.length > 20) throw new UsageError('--retry-schedule admite hasta 20 esperas');
    out.retrySchedule = parts.map((p) => parseInteger(p.trim(), '--retry-schedule', 0, 3_600_000));
  }
  if (opts.readyDelay !== undefined)
    out.readyDelayMs = parseInteger(opts.readyDelay, '--ready-delay', 0, 600_000);
  if (opts.porPagina !== undefined)
    out.pageSize = parseInteger(opts.porPagina, '--por-pagina', 0, 100_000);
  if (opts.comprimir !== undefined)
    out.compress = parseChoice(opts.comprimir, ['gzip', 'deflate', 'br'] as const, '--comprimir');
  if (opts.camposExtra === true || opts.fechasConZona === true || opts.estadosNuevos === true)
    out.latitude = {
      extraFields: opts.camposExtra === true,
      offsetDates: opts.fechasConZona === true,
      newStates: opts.estadosNuevos === true,
    };
  if (opts.generar !== undefined) {
    const { MAX_GENERATED } = await import('../../../sandbox/generate.js');
    out.generate = parseInteger(opts.generar, '--generar', 1, MAX_GENERATED);
    if (opts.escenario !== undefined)
      throw new UsageError('--generar y --escenario no van juntos: cada uno arranca de cero');
  }
  if (opts.escenario !== undefined) {
    const file = parseFilePath(opts.escenario, '--escenario');
    const { parseScenario, ScenarioError } = await import('../../../sandbox/scenario.js');
    const text = readFileArg(file, '--escenario').toString('utf8');
    try {
      out.escenario = { file, scenario: parseScenario(text) };
    } catch (err) {
      if (err instanceof ScenarioError)
        throw new UsageError(`--escenario ${printable(file)}: ${err.message}`);
      throw err;
    }
  }
  return out;
}

export async function run(ctx: Context, _args: string[], opts: Options): Promise<void> {
  const options = await parseOptions(opts);
  const signal = ctx.holdSignals();
  const { io } = ctx;
  const { startSandbox, SandboxStartError } = await import('../../../sandbox/index.js');
  const json = ctx.globals.json;
  let sandbox;
  // The scenario's own requests are the setup, not traffic: lines start with the banner.
  let setup = options.escenario !== undefined;
  try {
    sandbox = await startSandbox({
      ...options,
      onRequest: json
        ? undefined
        : (e) =>
            setup ||
            io.err(
              io.c.dim(
                `${e.fecha}  ${e.method.padEnd(6)} ${e.path}  ${e.status ?? 'cortada'}  ${e.ms} ms`,
              ),
            ),
      // Start-up notices about the data file (a cut tail set aside, compaction) go to stderr, also with --json.
      onNotice: (text) => io.err(`${io.c.yellow('aviso:')} ${text}`),
      onError: (err) => {
        io.err(
          `${io.c.red('error interno del sandbox:')} ${err instanceof Error ? err.message : String(err)}`,
        );
        if (ctx.globals.debug && err instanceof Error && err.stack) io.err(io.c.dim(err.stack));
      },
    });
  } catch (err) {
    if (err instanceof SandboxStartError) throw new ConfigError(err.message, err.hint);
    throw err;
  }
  if (options.escenario) await startWith(sandbox, options.escenario, options.tz);
  setup = false;
  const made = sandbox.generated;
  if (made) {
    const states = Object.entries(made.estados)
      .sort((a, b) => b[1] - a[1])
      .map(([estado, n]) => `${n} ${estado}`)
      .join(', ');
    io.err(
      `generados ${made.cobros} cobros del ${made.desde} al ${made.hasta} (${states}), con sus transacciones, devoluciones, liquidaciones y notificaciones (ya entregadas)`,
    );
  }

  const tz = options.tz ?? DEFAULTS.timeZone;
  if (json) {
    io.out(
      JSON.stringify({
        base_url: sandbox.baseUrl,
        api_key: sandbox.apiKey,
        api_key_no_listo: sandbox.apiKeyNoListo,
        api_key_live: sandbox.apiKeyLive,
        webhook_secret: sandbox.webhookSecret,
        tz,
        ...(isLoopbackHost(options.host) ? { panel: `${sandbox.baseUrl}/` } : {}),
      }),
    );
  } else {
    const c = io.c;
    const schedule = options.retrySchedule ?? DEFAULTS.retryScheduleMs;
    // Labels 21 wide: every line fits 80 columns.
    const row = (label: string, value: string) => io.out(`  ${label.padEnd(21)}  ${value}`);
    io.out(`${c.green('●')} Sandbox de svc escuchando en ${c.bold(sandbox.baseUrl)}`);
    // The dashboard answers on loopback binds only (sandbox/app.ts).
    if (isLoopbackHost(options.host)) row('panel (navegador)', `${sandbox.baseUrl}/`);
    io.out('');
    row('clave test (listo)', sandbox.apiKey);
    row('clave test (no listo)', sandbox.apiKeyNoListo);
    row(
      'clave live de ensayo',
      sandbox.apiKeyLive ?? 'no disponible (archivo de datos anterior a ella)',
    );
    if (sandbox.apiKeyLive) row('', c.dim('(sin dinero real: banner, confirmaciones y --yes)'));
    row('secreto de firma', sandbox.webhookSecret);
    row(
      'datos',
      options.dataFile ? options.dataFile : `en memoria ${c.dim('(--data para guardarlos)')}`,
    );
    row(
      'notificaciones',
      options.webhookUrl ?? `sin URL ${c.dim('(--webhook-url, o POST /_sandbox/webhook)')}`,
    );
    row('reintentos', `${schedule.length} ${c.dim(`(esperas ${schedule.join(', ')} ms)`)}`);
    row('zona horaria', `${tz}${c.dim(' (--tz)')}`);
    io.out('');
    io.out('Para usarlo desde otra terminal:');
    // Another zone than the service's default travels with the address, so typed times mean the same.
    // One variable a line, continued with \, so the command fits 80 columns and pastes whole.
    const vars = [
      `SVC_BASE_URL=${sandbox.baseUrl}`,
      `SVC_API_KEY=${sandbox.apiKey}`,
      `SVC_WEBHOOK_SECRET=${sandbox.webhookSecret}`,
    ];
    if (tz !== DEFAULTS.timeZone) vars.push(`SVC_TZ=${tz}`);
    io.out(`  export ${vars.join(' \\\n    ')}`);
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
}

function c2(ctx: Context, text: string): string {
  return ctx.io.c.dim(text);
}

/** Applies --escenario to the sandbox just started, through its own API; a refused step stops it (exit 2). */
async function startWith(
  sandbox: {
    baseUrl: string;
    apiKey: string;
    apiKeyLive?: string | null | undefined;
    app: {
      deps: {
        store: { cobros: { maxId: number } };
        clock: Pick<import('../../../sandbox/time.js').Clock, 'now' | 'offset' | 'setOffset'>;
      };
    };
    close(): Promise<void>;
  },
  esc: NonNullable<ServeOptions['escenario']>,
  tz: string | undefined,
): Promise<void> {
  const { applyScenario, ScenarioError } = await import('../../../sandbox/scenario.js');
  const { parseVencimiento } = await import('../../../domain/dates.js');
  if (sandbox.app.deps.store.cobros.maxId > 0) {
    await sandbox.close();
    throw new UsageError(
      `--escenario: el archivo de datos ya tiene cobros; un escenario arranca de cero (otro --data, o sin --data)`,
    );
  }
  if (!sandbox.apiKeyLive && esc.scenario.cobros.some((c) => c.comercio === 'ensayo')) {
    await sandbox.close();
    throw new UsageError(
      `--escenario ${printable(esc.file)}: tiene cobros del comercio de ensayo, y el archivo de datos es anterior a él (otro --data, o sin --data)`,
    );
  }
  // One kept-alive connection for the whole scenario: a fetch per step cost more than the step.
  const { Agent, request } = await import('node:http');
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const base = new URL(sandbox.baseUrl);
  const call = (method: string, path: string, body: unknown, comercio: 'ensayo' | undefined) =>
    new Promise<{
      status: number;
      body: { data?: unknown; message?: string };
      headers: Record<string, string | string[] | undefined>;
    }>((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = request(
        {
          host: base.hostname,
          port: base.port,
          method,
          path,
          agent,
          headers: {
            authorization: `Bearer ${comercio === 'ensayo' ? sandbox.apiKeyLive : sandbox.apiKey}`,
            ...(payload === undefined
              ? {}
              : {
                  'content-type': 'application/json',
                  'content-length': Buffer.byteLength(payload),
                }),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            try {
              resolve({
                status: res.statusCode ?? 0,
                body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
                  data?: unknown;
                  message?: string;
                },
                headers: res.headers,
              });
            } catch (err) {
              reject(err as Error);
            }
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  // A request with `hace` is made, paid and refunded with the clock set that far back;
  // the clock is where it was once the scenario is applied.
  const { clock } = sandbox.app.deps;
  const start = clock.offset();
  try {
    await applyScenario(
      esc.scenario,
      call,
      // Relative to the request's moment (its `hace`), as the sandbox's clock says.
      (text) => parseVencimiento(text, { timeZone: tz ?? DEFAULTS.timeZone, now: clock.now() }).iso,
      (ms) => clock.setOffset(start - ms),
    );
  } catch (err) {
    await sandbox.close();
    if (err instanceof ScenarioError)
      throw new UsageError(`--escenario ${printable(esc.file)}: ${err.message}`);
    throw err;
  } finally {
    clock.setOffset(start);
    agent.destroy();
  }
}
