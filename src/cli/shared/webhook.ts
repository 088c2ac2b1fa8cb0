// What the webhook commands share: where the signing secret comes from, how a raw
// body and the journal are found, and the one-line rendering of an event for
// listen, replay and trigger.
import { existsSync, readFileSync } from 'node:fs';
import type { JournalEntry, JournalRead } from '../../webhooks/event-journal.js';
import type { Context } from '../context.js';
import { ConfigError, UsageError } from '../../errors.js';
import { parseFilePath, printable } from '../parse.js';
import { count, shown } from '../../text.js';
import { serviceTime, timeOfDay } from '../../domain/dates.js';
import { readAll } from '../stdin.js';
import { breakAtSpaces, narrowerThan, type Colors, type IO } from '../../output/io.js';
import { maskTarget } from '../../api/address.js';

/**
 * The signing secret: SVC_WEBHOOK_SECRET with --secret-from-env; otherwise the
 * resolved one (SVC_WEBHOOK_SECRET, then the profile). Never from a flag's value.
 */
export async function resolveSecret(
  ctx: Context,
  opts: { secretFromEnv?: boolean },
): Promise<string> {
  if (opts.secretFromEnv === true) {
    const secret = ctx.env.SVC_WEBHOOK_SECRET;
    if (!secret) {
      throw new UsageError(
        '--secret-from-env: la variable SVC_WEBHOOK_SECRET no está definida',
        'exportala con el secreto de firma del panel: export SVC_WEBHOOK_SECRET=…',
      );
    }
    return secret;
  }
  const r = await ctx.resolved();
  if (r.webhookSecret) return r.webhookSecret.value;
  const { CredentialError, checkProfileExists } = await import('../../config/credentials.js');
  checkProfileExists(r);
  throw new CredentialError(
    `no hay secreto de firma de notificaciones (perfil "${r.profileName.value}")`,
    'no_secret',
  );
}

/** Raw bytes from --body FILE, or from stdin (--body - or no --body). */
export async function readBody(
  ctx: Context,
  file: string | undefined,
  what = 'el cuerpo',
): Promise<Buffer> {
  if (file !== undefined && file !== '-') return readFileArg(file, '--body');
  if (ctx.io.stdin.isTTY && ctx.env.SVC_FORCE_TTY !== '1') {
    throw new UsageError(
      `falta ${what}: pasalo con --body ARCHIVO o por la entrada estándar (… | svc webhook …)`,
    );
  }
  return readAll(ctx.io.stdin);
}

export function readFileArg(file: string, flag: string): Buffer {
  if (file.trim() === '') throw new UsageError(`${flag} necesita la ruta de un archivo`);
  try {
    return readFileSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no existe'
        : code === 'EISDIR'
          ? 'es una carpeta'
          : code === 'EACCES'
            ? 'sin permiso de lectura'
            : (err as Error).message;
    throw new UsageError(`${flag} "${printable(file)}": ${why}`);
  }
}

/** --journal FILE, else <data dir>/webhooks.jsonl. */
export async function journalPath(
  ctx: Context,
  opts: { journal?: string },
  reading = false,
): Promise<string> {
  if (opts.journal !== undefined) {
    const path = parseFilePath(opts.journal, '--journal');
    // A journal named to be read must be there: a mistyped name is not "no events yet".
    if (reading && !existsSync(path))
      throw new UsageError(
        `--journal ${printable(path)}: no existe (lo escribe svc webhook listen; sin --journal se usa el de la carpeta de datos)`,
      );
    return path;
  }
  const { defaultJournalPath } = await import('../../webhooks/event-journal.js');
  return defaultJournalPath(ctx.env);
}

/**
 * The journal's entries; a line that is not one (cut by a crash, edited by hand) is
 * skipped with a notice on stderr naming its file and line, so no command stops
 * halfway on it. `keep` chooses the entries kept (every one by default).
 */
export async function readJournalAt(
  ctx: Context,
  path: string,
  keep?: (e: JournalEntry) => boolean,
): Promise<JournalRead> {
  const { readJournal } = await import('../../webhooks/event-journal.js');
  const read = await journalRead(() => readJournal(path, keep));
  reportSkipped(ctx, read);
  return read;
}

/** The journal's entries about one request, through the files' indexes (JournalReader.about). */
export async function readJournalAboutAt(
  ctx: Context,
  path: string,
  cobroId: number,
): Promise<JournalRead> {
  const { readJournalAbout } = await import('../../webhooks/event-journal.js');
  const read = await journalRead(() => readJournalAbout(path, cobroId));
  reportSkipped(ctx, read);
  return read;
}

/** What a reading of the journal did; a JournalError (a file that cannot be read) as a ConfigError. */
export async function journalRead<T>(read: () => T): Promise<T> {
  const { JournalError } = await import('../../webhooks/event-journal.js');
  try {
    return read();
  } catch (err) {
    if (err instanceof JournalError) throw new ConfigError(err.message);
    throw err;
  }
}

/** Entries of a stream of the journal, a file that cannot be read as a ConfigError. */
export async function journalStream(
  entries: Iterable<JournalEntry>,
): Promise<Iterable<JournalEntry>> {
  const { JournalError } = await import('../../webhooks/event-journal.js');
  return (function* () {
    try {
      yield* entries;
    } catch (err) {
      if (err instanceof JournalError) throw new ConfigError(err.message);
      throw err;
    }
  })();
}

/** One notice on stderr for each line of the journal that was skipped (the first few), then a count. */
export function reportSkipped(ctx: Context, read: Pick<JournalRead, 'problems' | 'skipped'>): void {
  const { io } = ctx;
  for (const p of read.problems)
    io.err(
      io.c.yellow(
        `aviso: ${p.file} línea ${p.line}: no es una entrada del journal (${p.why}); se omitió`,
      ),
    );
  const more = read.skipped - read.problems.length;
  if (more > 0)
    io.err(
      io.c.yellow(
        `aviso: y ${count(more, 'línea más', 'líneas más')} del journal que no se pudieron leer`,
      ),
    );
}

export const OUTCOME_LABEL: Record<string, string> = {
  forwarded: 'reenviado',
  target_error: 'la app falló',
  unreachable: 'app caída',
  rejected: 'firma inválida',
  skipped: 'filtrado',
  too_large: 'demasiado grande',
  received: 'recibido',
};

function statusColor(status: number | null, c: Colors): (s: string) => string {
  if (status === null) return c.red;
  if (status >= 200 && status < 300) return c.green;
  if (status >= 400 && status < 500) return c.yellow;
  return c.red;
}

/**
 * A journal field as shown. The file can hold anything (reading it checks only id,
 * body and date), so a field may be missing, of any type, or hostile text.
 */
export function field(value: unknown, max = 60, dash = '-'): string {
  if (value === null || value === undefined) return dash;
  return shown(typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value)), max);
}

/** Columns a full event line takes: date and time, the longest event and state, an amount, the app's answer. */
export const EVENT_LINE_WIDTH = 116;

/**
 * Whether event lines are written short: on a terminal narrower than a full line,
 * the time without the date, no state, and no repeat of what the listener's banner
 * said, so the widest line of an answered event fits 80 columns instead of taking
 * two rows (`svc webhook ver <id>` shows everything). Piped, they stay whole.
 */
export function shortEventLines(io: IO): boolean {
  return narrowerThan(io, EVENT_LINE_WIDTH);
}

/**
 * The amount of an event as a person reads it: a partial payment's says what was
 * collected so far beside the request's amount (`3000.00 de 23000.00`; `short`, the
 * collected alone, as the event's name says it is partial), where the request's amount
 * alone read as paid whole. From the body's monto_cobrado, read here (a small JSON
 * object; anything else leaves the amount as it is).
 */
export function eventAmount(e: JournalEntry, short = false): string | null {
  if (e.event !== 'payment.partially_paid' || typeof e.monto !== 'string') return e.monto;
  if (e.body_encoding !== 'utf8' || typeof e.body !== 'string' || e.body.length > 65_536)
    return e.monto;
  let cobrado: unknown;
  try {
    cobrado = (JSON.parse(e.body) as { monto_cobrado?: unknown } | null)?.monto_cobrado;
  } catch {
    return e.monto;
  }
  if (typeof cobrado !== 'string' || cobrado === e.monto) return e.monto;
  return short ? cobrado : `${cobrado} de ${e.monto}`;
}

/**
 * One line per event: time, event, cobro, estado, monto, what happened, latency
 * (`short`: see shortEventLines). Every string of the entry came from the network
 * or the journal file: each is rendered by `shown`, shortened so a huge field
 * cannot flood the terminal.
 */
export function eventLine(io: IO, e: JournalEntry, zone: string, short = false): string {
  const c = io.c;
  // The service's own format and zone (ctx.zone()), as every date svc shows.
  const when = serviceTime(e.received_at, zone);
  const cols = [
    c.dim(field(short ? timeOfDay(when) : when, 40)),
    field(e.event, 40, '(sin evento)').padEnd(26),
    `cobro ${field(e.cobro_id, 20)}`.padEnd(11),
    ...(short ? [] : [field(e.estado, 40).padEnd(21)]),
    field(eventAmount(e, short), 50).padStart(short ? 10 : 12),
  ];
  // Short lines say what happened without what the banner already said (the target,
  // --events, no --forward-to); why an app could not be reached is kept whole.
  let tail: string;
  switch (e.outcome) {
    case 'rejected':
      tail = `${c.red(`<-- 401 firma inválida (${field(e.verification?.reason, 60, '?')})`)}${short ? '' : ' no reenviado'}`;
      break;
    case 'too_large':
      tail = `${c.red('<-- 413')} ${short ? 'demasiado grande' : `cuerpo de ${field(e.bytes, 20)} bytes, demasiado grande; no reenviado`}`;
      break;
    case 'skipped':
      tail = c.dim(short ? '<-- 200 filtrado' : '<-- 200 filtrado por --events; no reenviado');
      break;
    case 'received':
      tail = short ? c.green('<-- 200') : `${c.green('<-- 200')} ${c.dim('(sin --forward-to)')}`;
      break;
    case 'unreachable':
      // `<--` is what the sender was answered; a replay has no sender.
      tail = `${c.red(`--> ${short ? '' : `${field(maskTarget(e.target), 200, '?')} `}sin respuesta: ${field(e.error, 200, '?')}`)}${e.source === 'replay' ? '' : ` ${c.red(`<-- ${field(e.answered ?? 502, 20)}`)}`}`;
      break;
    default: {
      const paint = statusColor(e.status, c);
      tail = `--> ${paint(field(e.status, 20))} ${c.dim(`${formatMs(e.latency_ms)}`)}`;
      // The app's reply as the app wrote it (its line breaks as blanks), escaped only if the terminal would act on it.
      if (e.outcome === 'target_error' && typeof e.response_start === 'string' && e.response_start)
        tail += `  ${c.dim(`«${shown(e.response_start.replace(/\s*[\r\n]+\s*/g, ' ').trim(), 120)}»`)}`;
    }
  }
  const replay = e.source === 'replay' ? c.cyan(`replay ${field(e.replay_of, 40, '')} `) : '';
  // Wider than the terminal (the app's reply, a narrow one): broken between words, under the event.
  return breakAtSpaces(`${cols.join('  ')}  ${replay}${tail}`, io.columns, short ? 10 : 21);
}

export function formatMs(ms: number | null): string {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return '-';
  return ms < 10 ? `${ms.toFixed(1)} ms` : `${Math.round(ms)} ms`;
}
