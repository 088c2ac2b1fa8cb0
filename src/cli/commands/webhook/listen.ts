// svc webhook listen: a receiver on loopback that verifies each notification, forwards
// it byte for byte to the developer's app, answers the sender with the app's status
// (502 when the app is down, so the service retries), prints one line per event
// (one JSON object with --json) and journals everything. Runs until SIGINT/SIGTERM,
// then stops accepting, waits for forwards in flight and closes the journal.
import { EVENTOS } from '../../../api/enums.js';
import { maskTarget } from '../../../api/address.js';
import type { Context } from '../../context.js';
import { DEFAULTS } from '../../../defaults.js';
import { ConfigError, UsageError } from '../../../errors.js';
import type { OptionsOf } from '../../define.js';
import {
  isLoopbackHost,
  parseHeaders,
  parseHost,
  parsePort,
  parseTimeoutSeconds,
  parseTolerance,
  parseUrl,
  printable,
} from '../../parse.js';
import { eventLine, journalPath, resolveSecret, shortEventLines } from '../../shared/webhook.js';
import type { listenOptions } from './index.js';
import { count } from '../../../text.js';

type Options = OptionsOf<typeof listenOptions>;

export interface ListenFlags {
  host: string;
  port: number;
  path: string;
  forwardTo?: string;
  routes: Record<string, string>;
  events?: string[];
  headers: [string, string][];
  toleranceSeconds?: number;
  forwardTimeoutMs?: number;
  /** --conservar: what the journal keeps, in bytes. */
  keepBytes?: number;
}

const SIZE_UNITS: Record<string, number> = {
  kb: 1e3,
  kib: 1024,
  mb: 1e6,
  mib: 1024 ** 2,
  gb: 1e9,
  gib: 1024 ** 3,
  tb: 1e12,
  tib: 1024 ** 4,
};

/** `--conservar 2GiB`, `500MB`, `1.5GB`: bytes, between 1 MiB and 16 TiB; exit 2 for anything else. */
export function parseKeepSize(text: string): number {
  const m = /^\s*(\d+(?:[.,]\d+)?)\s*([KMGT]i?B)\s*$/i.exec(text);
  const bytes = m ? Number(m[1]!.replace(',', '.')) * SIZE_UNITS[m[2]!.toLowerCase()]! : NaN;
  if (!(bytes >= 1024 ** 2 && bytes <= 16 * 1024 ** 4))
    throw new UsageError(
      `--conservar "${printable(text)}" no es un tamaño entre 1 MiB y 16 TiB (ej. 500MB, 2GiB)`,
    );
  return Math.floor(bytes);
}

/** Checks every flag; UsageError (exit 2) before anything starts. */
export function parseListenFlags(opts: Options): ListenFlags {
  const out: ListenFlags = {
    host: DEFAULTS.host,
    port: DEFAULTS.listenPort,
    path: DEFAULTS.listenPath,
    routes: {},
    headers: parseHeaders(opts.header),
  };
  if (opts.host !== undefined) out.host = parseHost(opts.host);
  if (opts.conservar !== undefined) out.keepBytes = parseKeepSize(opts.conservar);
  if (opts.port !== undefined) out.port = parsePort(opts.port);
  if (opts.path !== undefined) {
    const p = String(opts.path).trim();
    if (!/^\/?[A-Za-z0-9._~!$&'()*+,;=:@%/-]*$/.test(p))
      throw new UsageError(`--path "${printable(p)}" no es una ruta válida (ej. /webhooks)`);
    out.path = p.startsWith('/') ? p : `/${p}`;
  }
  if (opts.forwardTo !== undefined)
    out.forwardTo = parseUrl(opts.forwardTo, '--forward-to', 'http');
  if (opts.events !== undefined) {
    const names = String(opts.events)
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean);
    if (names.length === 0) throw new UsageError('--events necesita al menos un evento');
    for (const n of names) checkEvent(n, '--events');
    out.events = names;
  }
  for (const raw of opts.route ?? []) {
    const eq = raw.indexOf('=');
    if (eq <= 0) throw new UsageError(`--route "${printable(raw)}" no tiene la forma EVENTO=URL`);
    const event = raw.slice(0, eq).trim();
    checkEvent(event, '--route');
    out.routes[event] = parseUrl(raw.slice(eq + 1), `--route ${event}`, 'http');
  }
  out.toleranceSeconds = parseTolerance(opts.tolerance);
  out.forwardTimeoutMs = parseTimeoutSeconds(opts.forwardTimeout);
  return out;
}

function checkEvent(name: string, flag: string): void {
  if (!(EVENTOS as readonly string[]).includes(name)) {
    throw new UsageError(
      `${flag}: "${printable(name)}" no es un evento del servicio; valores posibles: ${EVENTOS.join(', ')}`,
    );
  }
}

export async function run(ctx: Context, _args: string[], opts: Options): Promise<void> {
  const { io } = ctx;
  const c = io.c;
  const flags = parseListenFlags(opts);
  const secret = await resolveSecret(ctx, opts);
  const journal = await journalPath(ctx, opts);
  const signal = ctx.holdSignals();
  const json = ctx.globals.json;
  const { startListener, ListenStartError } = await import('../../../webhooks/listen.js');
  const { JournalError, JOURNAL_KEEP_BYTES } = await import('../../../webhooks/event-journal.js');

  // One write for the lines of a few dozen milliseconds (LineBatch): a write per event
  // was a system call per event on the listener's busiest thread.
  const zone = json ? '' : await ctx.zone();
  const short = !json && shortEventLines(io);
  const lines = new LineBatch((text) => (json ? io.outRaw(text) : io.out(text)));
  let listener;
  try {
    listener = await startListener({
      secret,
      host: flags.host,
      port: flags.port,
      path: flags.path,
      forwardTo: flags.forwardTo,
      routes: flags.routes,
      events: flags.events,
      headers: flags.headers,
      toleranceSeconds: flags.toleranceSeconds,
      forwardTimeoutMs: flags.forwardTimeoutMs,
      network: await ctx.network(),
      journal,
      journalKeepBytes: flags.keepBytes,
      onEvent: (e) => lines.push(json ? JSON.stringify(e) : eventLine(io, e, zone, short)),
      onError: (err) => io.err(`${c.red('error:')} ${err.message}`),
    });
  } catch (err) {
    if (err instanceof ListenStartError) {
      throw new ConfigError(
        err.message,
        err.code === 'EADDRINUSE' ? 'elegí otro con --port (0 elige uno libre)' : undefined,
      );
    }
    if (err instanceof JournalError)
      throw new ConfigError(err.message, 'elegí otro archivo con --journal');
    throw err;
  }

  const loopback = isLoopbackHost(flags.host);
  const tolerance = flags.toleranceSeconds ?? DEFAULTS.toleranceSeconds;
  io.err(
    `${c.green('●')} Escuchando notificaciones en ${c.bold(listener.url)}${loopback ? c.dim(' (solo esta máquina)') : ''}`,
  );
  if (!loopback) io.err(c.yellow(`  atención: ${flags.host} acepta conexiones de otras máquinas`));
  io.err(
    `  reenvío    ${maskTarget(flags.forwardTo) ?? c.yellow('sin --forward-to: solo verifica, guarda y responde 200')}`,
  );
  for (const [event, url] of Object.entries(flags.routes))
    io.err(`  ruta       ${event} → ${maskTarget(url)}`);
  if (flags.events)
    io.err(
      `  eventos    ${flags.events.join(', ')} ${c.dim('(el resto se responde 200 y no se reenvía)')}`,
    );
  if (flags.headers.length) io.err(`  headers    ${flags.headers.map(([k]) => k).join(', ')}`);
  io.err(
    `  firma      secreto de ${opts.secretFromEnv === true ? 'SVC_WEBHOOK_SECRET' : 'SVC_WEBHOOK_SECRET o el perfil'}; tolerancia ${tolerance === 0 ? 'desactivada' : `${tolerance} s`}`,
  );
  const keep = flags.keepBytes ?? JOURNAL_KEEP_BYTES;
  io.err(
    `  journal    ${journal} ${c.dim(`(guarda hasta ${sizeText(keep)}; pasado eso borra lo más viejo: --conservar)`)}`,
  );
  if (short)
    io.err(
      `  líneas     ${c.dim(`cortas, a ${io.columns} columnas: sin fecha ni estado (svc webhook ver <id>)`)}`,
    );
  io.err('');
  io.err('El servicio solo entrega a URLs https: poné un túnel delante y configurá');
  io.err('su URL https en el panel, por ejemplo:');
  io.err(`  cloudflared tunnel --url http://127.0.0.1:${listener.port}`);
  io.err(`  ngrok http ${listener.port}`);
  // A running sandbox takes a new notification URL as it runs: no restart (which, without --data, changes its keys).
  io.err(`(con el sandbox no hace falta: svc sandbox webhook ${listener.url}, sin reiniciarlo)`);
  io.err('');
  io.err(`${c.green('Listo.')} Esperando notificaciones en ${listener.url} — Ctrl-C para detener.`);

  await new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
  const inFlight = listener.stats().in_flight;
  io.err(
    c.dim(
      inFlight
        ? `deteniendo: esperando ${count(inFlight, 'reenvío', 'reenvíos')} en curso…`
        : 'deteniendo…',
    ),
  );
  await listener.close();
  lines.flush();
  const s = listener.stats();
  io.err(
    c.dim(
      `detenido: ${s.received} recibidas, ${s.forwarded} reenviadas, ${s.failed} fallidas, ${s.rejected} rechazadas, ${s.skipped} filtradas.`,
    ),
  );
}

/**
 * How long an event's line may wait to be written with those that follow it. At a
 * steady rate events arrive one per turn of the event loop, and a write per turn was
 * one of the listener's 18 system calls per event (and a wake-up of whoever reads),
 * #28. A person does not see 50 ms; the journal, not this line, is what a crash must
 * not lose, and a stop writes what waits.
 */
const LINE_DELAY_MS = 50;
/** Lines written at once at most, whatever the delay: a burst never holds many in memory. */
const LINE_BATCH_MAX = 512;

/** Lines gathered for up to LINE_DELAY_MS (or LINE_BATCH_MAX lines), written together. */
class LineBatch {
  private pending: string[] = [];
  private timer: NodeJS.Timeout | undefined;
  constructor(private readonly write: (text: string) => void) {}

  push(line: string): void {
    this.pending.push(line);
    if (this.pending.length >= LINE_BATCH_MAX) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), LINE_DELAY_MS);
  }

  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length === 0) return;
    const text = this.pending.join('\n');
    this.pending = [];
    this.write(text);
  }
}

/** A size as a person reads it: `2.5 GiB`, `500 MiB`. */
function sizeText(bytes: number): string {
  const gib = bytes / 1024 ** 3;
  if (gib >= 1) return `${Number(gib.toFixed(1))} GiB`;
  return `${Math.round(bytes / 1024 ** 2)} MiB`;
}
