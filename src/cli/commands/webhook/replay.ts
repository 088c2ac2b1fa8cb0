// svc webhook replay [ID|--last N|--all]: re-sends journal entries with their
// original bytes and headers (Content-Type and X-Svc-*), to where each went or to
// --forward-to. The original timestamp may be older than the app's tolerance:
// --resign signs again with a fresh one. Each replay is journaled too.
import { createHash } from 'node:crypto';
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
  journalRead,
  journalStream,
  reportSkipped,
  resolveSecret,
} from '../../shared/webhook.js';
import type { replayOptions } from './index.js';
import { count } from '../../../text.js';

/** Entries --last and --all consider: what arrived at the listener, signed correctly, with a body. */
function replayable(e: JournalEntry): boolean {
  return e.source === 'listen' && e.verification.valid && e.outcome !== 'too_large';
}

export type Mode = 'id' | 'last' | 'all';

/**
 * The ids --all checked, in order, as numbers (8 bytes each: 1M entries take 8 MB, not
 * the entries): a listener's id (`evt_` and 12 hex digits) is its 48 bits, any other
 * the first 48 bits of its hash.
 */
export class CheckedIds {
  private keys = new Float64Array(1024);
  private n = 0;

  private static key(id: string): number {
    return /^evt_[0-9a-f]{12}$/.test(id)
      ? parseInt(id.slice(4), 16)
      : createHash('sha256').update(id).digest().readUIntBE(0, 6);
  }

  add(id: string): void {
    if (this.n === this.keys.length) {
      const more = new Float64Array(this.n * 2);
      more.set(this.keys);
      this.keys = more;
    }
    this.keys[this.n++] = CheckedIds.key(id);
  }

  /** Whether the `i`th id checked is `id`. */
  is(i: number, id: string): boolean {
    return i < this.n && this.keys[i] === CheckedIds.key(id);
  }
}

/** Which of the three ways to choose was asked for: exactly one. */
export function modeOf(id: string | undefined, last: number | undefined, all: boolean): Mode {
  const modes = [id !== undefined, last !== undefined, all].filter(Boolean).length;
  if (modes === 0)
    throw new UsageError(
      'decí qué reenviar: un id (svc webhook eventos los lista), --last N o --all',
    );
  if (modes > 1) throw new UsageError('elegí uno: un id, --last N o --all');
  return id !== undefined ? 'id' : last !== undefined ? 'last' : 'all';
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
 * The last `n` events, oldest first, from the journal read newest first (the reading
 * stops at the n-th): the service sends an event again until the app answers 2xx, and
 * each delivery is an entry of its own with the same signed body; `--last 3` means
 * three events, each at its latest delivery.
 */
export function lastEvents(newestFirst: Iterable<JournalEntry>, n: number): JournalEntry[] {
  const seen = new Set<string>();
  const chosen: JournalEntry[] = [];
  for (const e of newestFirst) {
    if (chosen.length >= n) break;
    if (!replayable(e)) continue;
    const key = `${e.body_encoding}:${e.body}`;
    if (seen.has(key)) continue;
    seen.add(key);
    chosen.push(e);
  }
  return chosen.reverse();
}

/** Why an entry cannot be sent again as asked, or nothing. */
function refusal(e: JournalEntry, forwardTo: URL | string | undefined): UsageError | undefined {
  if (e.outcome === 'too_large')
    return new UsageError(
      `${e.id} no se guardó (el cuerpo superaba el límite): no se puede reenviar`,
    );
  if (e.body_truncated)
    return new UsageError(
      `${e.id} fue rechazado y solo se guardó el comienzo de su cuerpo: no se puede reenviar`,
    );
  if (!forwardTo && !e.target)
    return new UsageError(
      `${e.id} no se reenvió a ninguna parte cuando llegó: indicá adónde con --forward-to`,
    );
  // The journal keeps targets without their credentials: such a one cannot be sent to again as it is.
  if (!forwardTo && isMaskedTarget(e.target!))
    return new UsageError(
      `${e.id} fue a ${field(e.target, 200)}, guardada sin sus credenciales: indicá la dirección completa con --forward-to`,
    );
  return undefined;
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

  const mode = modeOf(id, last, opts.all === true);
  const { JournalReader } = await import('../../../webhooks/event-journal.js');
  // Never the whole journal in memory: an id is looked up among the newest entries,
  // then through the index (else from the newest entry back), --last N keeps N, and
  // --all reads the journal twice (every entry checked before any is sent, then each
  // sent as it is read again, only while it is the entry checked at that place: a
  // journal that changed in between stops the sending, and says so).
  let reader = new JournalReader(path);
  let chosen: Iterable<JournalEntry>;
  let total: number;
  if (mode === 'id') {
    const { findInJournal } = await import('../../../webhooks/journal-lookup.js');
    const { found, reader: read } = await journalRead(() => findInJournal(path, id!));
    reader = read;
    if (!found.entry) {
      reportSkipped(ctx, { problems: reader.problems(), skipped: reader.skipped });
      throw notFound(id!, found.matches);
    }
    chosen = [found.entry];
    total = 1;
  } else if (mode === 'last') {
    const list = lastEvents(await journalStream(reader.events('newest')), last!);
    chosen = list;
    total = list.length;
  } else {
    total = 0;
    const ids = new CheckedIds();
    for (const e of await journalStream(reader.events('oldest')))
      if (replayable(e)) {
        const why = refusal(e, forwardTo);
        if (why) throw why;
        ids.add(e.id);
        total++;
      }
    chosen = (function* (entries: Iterable<JournalEntry>, n: number) {
      let i = 0;
      for (const e of entries) {
        if (i === n) return;
        if (!replayable(e)) continue;
        // The journal changed after the check: never send an entry that was not checked.
        if (!ids.is(i, e.id)) return;
        i++;
        yield e;
      }
    })(await journalStream(new JournalReader(path).events('oldest')), total);
  }
  reportSkipped(ctx, { problems: reader.problems(), skipped: reader.skipped });
  if (total === 0) {
    io.err(`no hay eventos para reenviar en ${path}`);
    return;
  }
  if (mode !== 'all')
    for (const e of chosen as JournalEntry[]) {
      const why = refusal(e, forwardTo);
      if (why) throw why;
    }
  const first = mode === 'id' ? (chosen as JournalEntry[])[0]! : undefined;
  if (first && !first.verification.valid) {
    io.err(
      io.c.yellow(
        `aviso: ${field(first.id, 40)} llegó con firma inválida (${field(first.verification.reason, 60, '?')}); se reenvía igual porque lo pediste por id`,
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
  let sent = 0;
  let tsHintShown = false;
  try {
    for (const original of chosen) {
      sent++;
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
  if (mode === 'all' && sent < total)
    throw new CliError(
      `se revisaron ${count(total, 'evento', 'eventos')} pero se reenviaron ${sent}: el journal cambió entre las dos lecturas (rotó o se borró un archivo); los que faltan no se mandaron, revisá con svc webhook eventos`,
      { exit: EXIT.network, code: 'journal_changed' },
    );
  if (unreachable)
    throw new CliError(
      `${unreachable} de ${count(sent, 'reenvío', 'reenvíos')} no ${unreachable === 1 ? 'llegó' : 'llegaron'} a la app`,
      { exit: EXIT.network, code: 'app_unreachable' },
    );
  if (failed)
    throw new CliError(
      `la app respondió con error a ${failed} de ${count(sent, 'reenvío', 'reenvíos')}`,
      { exit: EXIT.refused, code: 'app_refused' },
    );
  if (!ctx.globals.json && sent > 1) io.err(io.c.dim(`${sent} reenviados`));
}
