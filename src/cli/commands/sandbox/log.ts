// svc sandbox log / svc sandbox entregas: the sandbox's request log and its
// notification attempts, one line each, oldest first as a tail is (--limit n: the last n;
// --json: one object per line).
// --follow reads the sandbox's live stream (the dashboard's, GET /_sandbox/stream) for
// what comes after the last line shown, until Ctrl-C (exit 0) or until the sandbox goes
// away (exit 6, one line). It used to ask twice a second: a GET /_sandbox/log line in
// the sandbox's terminal every half second, and an abort listener more each time.
import { NetworkError } from '../../../api/service-errors.js';
import { CliError, EXIT, UsageError } from '../../../errors.js';
import { shown } from '../../../text.js';
import { timeOfDay } from '../../../domain/dates.js';
import { breakAtSpaces, narrowerThan } from '../../../output/io.js';
import type { Context } from '../../context.js';
import type { OptionsOf } from '../../define.js';
import { parseLimit } from '../../parse.js';
import { SandboxControl, type Entrega, type LogLine } from '../../shared/sandbox-control.js';
import type { entregasOptions, logOptions } from './index.js';

/** The filter of `--metodo`, `--ruta` and `--estado` (404, or 4xx / 5xx); the service's routes only, unless --ruta names /_sandbox. */
export function logFilter(opts: OptionsOf<typeof logOptions>): (l: LogLine) => boolean {
  const method = opts.metodo === undefined ? undefined : String(opts.metodo).toUpperCase();
  const prefix = opts.ruta === undefined ? undefined : String(opts.ruta);
  let status: (s: number | null) => boolean = () => true;
  if (opts.estado !== undefined) {
    const e = String(opts.estado).trim().toLowerCase();
    if (/^[1-5]xx$/.test(e)) status = (s) => s !== null && Math.floor(s / 100) === Number(e[0]);
    else if (/^[1-5][0-9]{2}$/.test(e)) status = (s) => s === Number(e);
    else
      throw new UsageError(
        `--estado "${shown(e, 20)}" no es válido (un status como 404, o 4xx / 5xx)`,
      );
  }
  // The control plane (/_sandbox/…, svc's own polling included) only when asked for by --ruta.
  const control = prefix?.startsWith('/_sandbox') === true;
  return (l) =>
    (control || !l.path.startsWith('/_sandbox/')) &&
    (!method || l.method === method) &&
    (!prefix || l.path.startsWith(prefix)) &&
    status(l.status);
}

/**
 * Prints what there is (the last `limit`, as `tail -n`), then, with --follow, what
 * comes: the stream is open before the list is read, so nothing falls between them
 * (what both carry is shown once, by its id).
 */
async function tail<T extends { id: number }>(
  ctx: Context,
  follow: ((signal: AbortSignal) => Promise<AsyncIterable<T>>) | undefined,
  limit: number | undefined,
  read: () => Promise<T[]>,
  keep: (x: T) => boolean,
  line: (x: T) => string,
): Promise<void> {
  const { io } = ctx;
  // A line wider than the terminal (60 columns) goes on under itself, broken between words.
  const show = (x: T) =>
    ctx.globals.json
      ? io.outRaw(JSON.stringify(x))
      : io.out(breakAtSpaces(line(x), io.columns, 10));
  const stop = follow ? ctx.holdSignals() : undefined;
  const live = follow && stop ? await follow(stop) : undefined;
  let last = 0;
  const first = (await read()).filter((x) => {
    last = Math.max(last, x.id);
    return keep(x);
  });
  for (const x of limit === undefined ? first : first.slice(-limit)) show(x);
  if (!live || !stop) return;
  try {
    for await (const x of live) {
      if (x.id <= last) continue;
      last = x.id;
      if (keep(x)) show(x);
    }
  } catch (err) {
    if (!(err instanceof NetworkError)) throw err;
    throw new CliError(`el sandbox dejó de responder (${err.message.split('\n')[0]})`, {
      exit: EXIT.network,
      code: 'sandbox_gone',
    });
  }
  if (!stop.aborted)
    throw new CliError('el sandbox se detuvo', { exit: EXIT.network, code: 'sandbox_gone' });
}

/** Columns of a whole log line: date and time, method, a path of 32, status, time taken, merchant. */
const LOG_LINE_WIDTH = 90;

export async function log(
  ctx: Context,
  _args: string[],
  opts: OptionsOf<typeof logOptions>,
): Promise<void> {
  const keep = logFilter(opts);
  // On a terminal narrower than a whole line, the time without the date: a line fits 80
  // columns instead of taking two rows (a tail is read as it comes; --json has the date).
  const short = narrowerThan(ctx.io, LOG_LINE_WIDTH);
  // Narrower than 80 (a phone, a split pane): no padding to line up, so a line fits 60.
  const tight = narrowerThan(ctx.io, 80);
  // A path is one word, which a line is never broken inside (it stays copyable): there it
  // is cut to what fits beside the broken line's indent (10), so even a stranger's long
  // path keeps the line within the terminal.
  const pathRoom = tight ? Math.max(16, (ctx.io.columns ?? 80) - 14) : 80;
  const control = new SandboxControl(await ctx.client({ banner: false }));
  await control.ensureSandbox('svc sandbox log');
  await tail<LogLine>(
    ctx,
    opts.follow === true ? (signal) => control.follow<LogLine>('log', signal) : undefined,
    parseLimit(opts.limit, 100_000),
    () => control.log(),
    keep,
    (l) =>
      tight
        ? `${timeOfDay(l.fecha)}  ${l.method} ${shown(l.path, pathRoom)}  ${String(l.status ?? 'cortada')}  ${l.ms} ms  comercio ${l.comercio ?? '-'}${l.ensayo ? ' (ensayo live)' : ''}`
        : `${short ? timeOfDay(l.fecha) : l.fecha}  ${l.method.padEnd(6)} ${shown(l.path, 80).padEnd(32)} ${String(l.status ?? 'cortada').padStart(7)}  ${`${l.ms} ms`.padEnd(9)} comercio ${l.comercio ?? '-'}${l.ensayo ? ' (ensayo live)' : ''}`,
  );
}

/** Columns of a whole attempt line: date and time, event, request, attempt, target URL, answer, time taken. */
const ATTEMPT_LINE_WIDTH = 120;

export async function entregas(
  ctx: Context,
  _args: string[],
  opts: OptionsOf<typeof entregasOptions>,
): Promise<void> {
  // On a narrower terminal: the time without the date, no target (the sandbox has one
  // notification URL; --json has it) and no latency, so an answered attempt fits 80 columns.
  const short = narrowerThan(ctx.io, ATTEMPT_LINE_WIDTH);
  const tight = narrowerThan(ctx.io, 80);
  const control = new SandboxControl(await ctx.client({ banner: false }));
  await control.ensureSandbox('svc sandbox entregas');
  await tail<Entrega>(
    ctx,
    opts.follow === true ? (signal) => control.follow<Entrega>('entrega', signal) : undefined,
    parseLimit(opts.limit, 100_000),
    () => control.entregas(),
    () => true,
    (e) => {
      // Narrower than 80: no padding to line up, so an attempt fits 60.
      const pad = (text: string, n: number) => (tight ? text : text.padEnd(n));
      const evento =
        e.evento_id === undefined ? '' : `evento ${pad(String(e.evento_id), short ? 3 : 5)} `;
      const answer = e.status ?? shown(e.error ?? 'sin respuesta', 60);
      const head = `${evento}${pad(shown(e.event, 30), short ? 26 : 28)} cobro ${pad(String(e.cobro_id), short ? 4 : 6)} intento ${e.intento ?? 1}${e.reenvio ? ' (reenvío)' : ''}`;
      if (short) return `${timeOfDay(e.fecha ?? '')}  ${head}  ${answer}`;
      return `${e.fecha ?? ''}  ${head}  ${shown(e.url, 60)}  ${answer}${e.latencia_ms !== undefined ? `  ${e.latencia_ms} ms` : ''}`;
    },
  );
}
