// svc webhook ver <id>: one received notification whole, from the journal: what
// arrived (headers, the body pretty and raw), whether it verified and why not, and
// every forward attempt (the original and each replay) with its status, latency and
// the app's answer (headers and the first 64 KiB of its body). --json: one object.
import { maskTarget } from '../../../api/address.js';
import { printable, shown } from '../../../text.js';
import {
  entryBody,
  type JournalEntry,
  type KeptResponse,
} from '../../../webhooks/event-journal.js';
import { serviceTime } from '../../../domain/dates.js';
import { breakAtSpaces } from '../../../output/io.js';
import type { Context } from '../../context.js';
import type { OptionsOf } from '../../define.js';
import { journalPath, journalRead, reportSkipped } from '../../shared/webhook.js';
import { notFound } from './replay.js';
import type { verOptions } from './index.js';

export interface Intento {
  id: string;
  fecha: string;
  source: JournalEntry['source'];
  destino: string | null;
  outcome: JournalEntry['outcome'];
  status: number | null;
  latencia_ms: number | null;
  error: string | null;
  respuesta: KeptResponse | null;
}

const attemptOf = (e: JournalEntry): Intento => ({
  id: e.id,
  fecha: e.received_at,
  source: e.source,
  // An older journal may hold a target whole: shown without its credentials.
  destino: maskTarget(e.target),
  outcome: e.outcome,
  status: e.status,
  latencia_ms: e.latency_ms,
  error: e.error ?? null,
  respuesta:
    e.response ??
    (e.response_start !== undefined
      ? {
          headers: {},
          body: e.response_start,
          body_encoding: 'utf8',
          bytes: e.response_start.length,
          truncated: true,
        }
      : null),
});

/** A body for a person: pretty JSON when it is JSON, else the text itself (escaped where unsafe). */
function pretty(bytes: Buffer): string {
  const text = bytes.toString('utf8');
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

export async function run(
  ctx: Context,
  args: string[],
  opts: OptionsOf<typeof verOptions>,
): Promise<void> {
  const path = await journalPath(ctx, opts, true);
  const id = args[0]!;
  // The newest entries read back, then the journal's index (its line, and its
  // replays', read at their offsets), else the whole journal read back.
  const { findInJournal } = await import('../../../webhooks/journal-lookup.js');
  const { found, reader } = await journalRead(() => findInJournal(path, id));
  reportSkipped(ctx, { problems: reader.problems(), skipped: reader.skipped });
  if (!found.entry) throw notFound(id, found.matches);
  const e = found.entry;
  const attempts = [e, ...found.replays]
    .filter((x) => x.target !== null || x.source !== 'listen')
    .map(attemptOf);
  const { io } = ctx;
  if (ctx.globals.json) {
    io.outRaw(JSON.stringify({ ...e, target: maskTarget(e.target), intentos: attempts }, null, 2));
    return;
  }
  const c = io.c;
  const line = (k: string, v: string) => io.out(`${c.dim(k.padEnd(12))} ${v}`);
  // Every field of the journal is shown through shown(): a hand-edited journal (or a
  // stranger's post, as the listener keeps it) may hold escapes in any of them.
  line('id', shown(e.id));
  const zone = await ctx.zone();
  line('recibido', serviceTime(e.received_at, zone));
  line('origen', shown(e.source) + (e.replay_of ? ` (de ${shown(e.replay_of)})` : ''));
  line('pedido', `${shown(e.method)} ${shown(e.path)}`);
  line(
    'evento',
    `${shown(e.event ?? '-')}  cobro ${e.cobro_id ?? '-'}  ${shown(e.estado ?? '-')}  ${shown(e.monto ?? '-')}`,
  );
  line(
    'firma',
    e.verification.valid
      ? c.green('válida')
      : c.red(
          `inválida: ${shown(e.verification.reason ?? '?')}${e.verification.message ? ` (${printable(e.verification.message, 200)})` : ''}`,
        ),
  );
  io.out();
  io.out(c.bold('headers'));
  for (const [k, v] of Object.entries(e.headers)) io.out(`  ${shown(k)}: ${shown(v)}`);
  const body = entryBody(e);
  io.out();
  io.out(c.bold(`cuerpo (${e.bytes} bytes${e.body_truncated ? ', solo el comienzo' : ''})`));
  for (const l of pretty(body).split('\n')) io.out(`  ${shown(l)}`);
  io.out(c.bold('cuerpo crudo'));
  io.out(`  ${shown(body.toString(e.body_encoding === 'base64' ? 'base64' : 'utf8'))}`);
  io.out();
  io.out(c.bold(`entregas a tu app (${attempts.length})`));
  if (attempts.length === 0)
    io.out(c.dim('  ninguna: el listener no tenía --forward-to (o el evento se filtró)'));
  for (const a of attempts) {
    const status =
      a.status === null
        ? c.red(`sin respuesta (${shown(a.error ?? '?')})`)
        : a.status < 300
          ? c.green(String(a.status))
          : c.red(String(a.status));
    // The same clock as `recibido` above: the service's zone and format (--json keeps ISO 8601).
    // Wider than the terminal (a long address): broken between its parts, under the time.
    io.out(
      breakAtSpaces(
        `  ${serviceTime(a.fecha, zone)}  ${shown(a.source).padEnd(7)} → ${shown(a.destino ?? '-')}  ${status}${a.latencia_ms !== null ? `  ${a.latencia_ms} ms` : ''}`,
        io.columns,
        6,
      ),
    );
    if (!a.respuesta) continue;
    for (const [k, v] of Object.entries(a.respuesta.headers))
      io.out(c.dim(`      ${shown(k)}: ${shown(v)}`));
    const answer = Buffer.from(
      a.respuesta.body,
      a.respuesta.body_encoding === 'base64' ? 'base64' : 'utf8',
    );
    for (const l of pretty(answer).split('\n')) io.out(`      ${shown(l)}`);
    if (a.respuesta.truncated)
      io.out(c.dim('      … (la respuesta seguía: se guarda hasta 64 KiB)'));
  }
}
