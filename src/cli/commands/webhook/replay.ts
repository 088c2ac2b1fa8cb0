// svc webhook replay [ID|--last N|--all]: re-sends journal entries with their
// original bytes and headers (Content-Type and X-Svc-*), to where each went or to
// --forward-to. The original timestamp may be older than the app's tolerance:
// --resign signs again with a fresh one. Each replay is journaled too.
import { isMaskedTarget, maskTarget } from '../../../api/address.js';
import { signatureHeader } from '../../../webhooks/signature.js';
import {
  entryBody,
  Journal,
  keptResponse,
  newEntryId,
  type JournalEntry,
} from '../../../webhooks/event-journal.js';
import { VERSION } from '../../../version.js';
import type { Context } from '../../context.js';
import { CliError, EXIT, UsageError } from '../../../errors.js';
import type { OptionsOf } from '../../define.js';
import {
  parseHeaders,
  parsePositiveInt,
  parseTimeoutSeconds,
  parseUrl,
  printable,
} from '../../parse.js';
import {
  eventLine,
  field,
  journalPath,
  readJournalAt,
  resolveSecret,
} from '../../shared/webhook.js';
import type { replayOptions } from './index.js';
import { count } from '../../../text.js';

/** Entries --last and --all consider: what arrived at the listener, signed correctly, with a body. */
function replayable(e: JournalEntry): boolean {
  return e.source === 'listen' && e.verification.valid && e.outcome !== 'too_large';
}

export function select(
  entries: JournalEntry[],
  id: string | undefined,
  last: number | undefined,
  all: boolean,
): JournalEntry[] {
  const modes = [id !== undefined, last !== undefined, all].filter(Boolean).length;
  if (modes === 0)
    throw new UsageError(
      'decí qué reenviar: un id (svc webhook eventos los lista), --last N o --all',
    );
  if (modes > 1) throw new UsageError('elegí uno: un id, --last N o --all');
  if (id !== undefined) {
    const matches = entries.filter((e) => e.id === id || e.id.startsWith(id));
    const exact = matches.filter((e) => e.id === id);
    if (exact.length) return [exact[0]!];
    if (matches.length !== 1) throw notFound(id, matches.length);
    return matches;
  }
  const pool = entries.filter(replayable);
  return last !== undefined ? lastEvents(pool, last) : pool;
}

/** No entry is `id`, and `matches` entries' ids start with it (none, or more than one). */
export function notFound(id: string, matches: number): CliError {
  if (matches > 1)
    return new UsageError(
      `"${printable(id)}" coincide con ${matches} eventos: escribí más caracteres del id`,
    );
  return new CliError(`no hay un evento "${printable(id)}" en el journal`, {
    exit: EXIT.notFound,
    code: 'not_found',
    hint: '`svc webhook eventos` lista los ids',
  });
}

/**
 * The last `n` events, oldest first: the service sends an event again until the app
 * answers 2xx, and each delivery is an entry of its own with the same signed body;
 * `--last 3` means three events, each at its latest delivery.
 */
function lastEvents(pool: JournalEntry[], n: number): JournalEntry[] {
  const seen = new Set<string>();
  const chosen: JournalEntry[] = [];
  for (let i = pool.length - 1; i >= 0 && chosen.length < n; i--) {
    const e = pool[i]!;
    const key = `${e.body_encoding}:${e.body}`;
    if (seen.has(key)) continue;
    seen.add(key);
    chosen.push(e);
  }
  return chosen.reverse();
}

export async function run(
  ctx: Context,
  args: string[],
  opts: OptionsOf<typeof replayOptions>,
): Promise<void> {
  const { io } = ctx;
  const id = args[0];
  const last = opts.last === undefined ? undefined : parsePositiveInt(opts.last, '--last', 100_000);
  const forwardTo =
    opts.forwardTo === undefined ? undefined : parseUrl(opts.forwardTo, '--forward-to', 'http');
  const extra = parseHeaders(opts.header);
  const timeoutMs = parseTimeoutSeconds(opts.forwardTimeout);
  const resign = opts.resign === true;
  const secret = resign ? await resolveSecret(ctx, opts) : undefined;
  const path = await journalPath(ctx, opts, true);
  const zone = ctx.globals.json ? '' : await ctx.zone();

  const { entries } = await readJournalAt(ctx, path);
  const chosen = select(entries, id, last, opts.all === true);
  if (chosen.length === 0) {
    io.err(`no hay eventos para reenviar en ${path}`);
    return;
  }
  for (const e of chosen) {
    if (e.outcome === 'too_large')
      throw new UsageError(
        `${e.id} no se guardó (el cuerpo superaba el límite): no se puede reenviar`,
      );
    if (e.body_truncated)
      throw new UsageError(
        `${e.id} fue rechazado y solo se guardó el comienzo de su cuerpo: no se puede reenviar`,
      );
    if (!forwardTo && !e.target) {
      throw new UsageError(
        `${e.id} no se reenvió a ninguna parte cuando llegó: indicá adónde con --forward-to`,
      );
    }
    // The journal keeps targets without their credentials: such a one cannot be sent to again as it is.
    if (!forwardTo && isMaskedTarget(e.target!)) {
      throw new UsageError(
        `${e.id} fue a ${field(e.target, 200)}, guardada sin sus credenciales: indicá la dirección completa con --forward-to`,
      );
    }
  }
  if (id !== undefined && !chosen[0]!.verification.valid) {
    io.err(
      io.c.yellow(
        `aviso: ${field(chosen[0]!.id, 40)} llegó con firma inválida (${field(chosen[0]!.verification.reason, 60, '?')}); se reenvía igual porque lo pediste por id`,
      ),
    );
  }

  const { Forwarder } = await import('../../../webhooks/forwarder.js');
  const { summarize } = await import('../../../webhooks/events.js');
  const forwarder = new Forwarder({ timeoutMs, network: await ctx.network() });
  let journal: Journal | undefined;
  try {
    journal = await Journal.open(path);
  } catch (err) {
    io.err(io.c.yellow(`aviso: ${(err as Error).message}; los reenvíos no quedan registrados`));
  }
  let unreachable = 0;
  let failed = 0;
  let tsHintShown = false;
  try {
    for (const original of chosen) {
      const body = entryBody(original);
      const headers: Record<string, string> = {
        'user-agent': `svc/${VERSION} (webhook replay)`,
        ...original.headers,
      };
      if (!headers['content-type']) headers['content-type'] = 'application/json';
      if (secret) {
        const ts = String(Math.floor(Date.now() / 1000));
        headers['x-svc-timestamp'] = ts;
        headers['x-svc-signature'] = signatureHeader(secret, ts, body);
      }
      for (const [k, v] of extra) headers[k.toLowerCase()] = v;
      const target = forwardTo ?? original.target!;
      const result = await forwarder.forward(target, body, headers);
      const s = summarize(body, original.headers['x-svc-event']);
      const entry: JournalEntry = {
        id: newEntryId(),
        received_at: new Date().toISOString(),
        source: 'replay',
        replay_of: original.id,
        method: 'POST',
        path: original.path,
        headers: Object.fromEntries(
          Object.entries(headers).filter(([k]) => k === 'content-type' || k.startsWith('x-svc-')),
        ),
        body: original.body,
        body_encoding: original.body_encoding,
        bytes: original.bytes,
        event: s.event,
        cobro_id: s.cobro_id,
        estado: s.estado,
        monto: s.monto,
        verification: original.verification,
        outcome: result.status === null ? 'unreachable' : result.ok ? 'forwarded' : 'target_error',
        target: maskTarget(target),
        status: result.status,
        answered: null,
        latency_ms: result.latencyMs,
        ...(result.error ? { error: result.error } : {}),
        ...(!result.ok && result.response?.length
          ? { response_start: result.response.subarray(0, 300).toString('utf8') }
          : {}),
      };
      const response = keptResponse(result);
      if (response) entry.response = response;
      await journal
        ?.append(entry)
        .catch((err: Error) => io.err(io.c.yellow(`aviso: ${err.message}`)));
      if (ctx.globals.json) io.outRaw(JSON.stringify(entry));
      else io.out(eventLine(io, entry, zone));
      if (result.status === null) unreachable++;
      else if (!result.ok) {
        failed++;
        if (!secret && (result.status === 401 || result.status === 400) && !tsHintShown) {
          tsHintShown = true;
          io.err(
            io.c.dim(
              '→ si tu app rechaza el timestamp viejo del original, probá con --resign (firma de nuevo con un timestamp actual)',
            ),
          );
        }
      }
    }
  } finally {
    await journal?.close().catch(() => undefined);
    await forwarder.close();
  }
  if (unreachable)
    throw new CliError(
      `${unreachable} de ${count(chosen.length, 'reenvío', 'reenvíos')} no ${unreachable === 1 ? 'llegó' : 'llegaron'} a la app`,
      { exit: EXIT.network, code: 'app_unreachable' },
    );
  if (failed)
    throw new CliError(
      `la app respondió con error a ${failed} de ${count(chosen.length, 'reenvío', 'reenvíos')}`,
      { exit: EXIT.refused, code: 'app_refused' },
    );
  if (!ctx.globals.json && chosen.length > 1) io.err(io.c.dim(`${chosen.length} reenviados`));
}
