// The local receiver behind `svc webhook listen` (and `svc demo`): for each POST on its
// path it reads the raw body (capped), verifies the signature over those bytes,
// filters by event, forwards the bytes unchanged with Content-Type and every X-Svc-*
// header to the target, answers the sender with the target's status (502 when the
// target is down or slow, so the service retries), journals the event and reports it.
// An answer that acknowledges (2xx) is sent only once the event's journal line is on
// disk (group commit: one durable write for every event waiting), so a crash after
// the answer never loses the event. Requests from strangers cost little: headers that
// cannot verify mean the body is read but not held (only its first bytes are kept,
// in the file of rejected requests), bodies held at once share a fixed budget (a
// request that does not fit is answered 503 before its body is read), and a declared
// Content-Length over the cap is answered 413 unread.
// Usable in-process: startListener(options) -> { url, port, close() }.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { VERSION } from '../version.js';
import { decodeUtf8, summarize, type EventSummary } from './events.js';
import { Forwarder, type ForwardResult, formatSeconds } from './forwarder.js';
import {
  Journal,
  REJECTED_BODY_KEEP,
  REJECTED_MAX_BYTES,
  clip,
  clipHeaders,
  encodeBody,
  encodePrefix,
  keptHeaders,
  newEntryId,
  rejectedPath,
  type JournalEntry,
  type Outcome,
} from './journal.js';
import { DEFAULT_TOLERANCE_SECONDS, verify, type VerifyResult } from './signature.js';

export const DEFAULT_LISTEN_PORT = 4242;
export const MAX_BODY_BYTES = 1024 * 1024;
/**
 * Request bodies held in memory at once, all requests together. A request whose body
 * does not fit is answered 503 (the service retries) before its body is read.
 */
export const BODIES_IN_FLIGHT_BYTES = 32 * 1024 * 1024;
/**
 * Bodies declared up to this size may use the last quarter of that budget, which
 * larger ones may not: real notifications are small and still get in while big forged
 * bodies fill the rest.
 */
export const SMALL_BODY_BYTES = 64 * 1024;

export interface ListenOptions {
  secret: string;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Path the notifications arrive at (default "/"). */
  path?: string;
  /** Where events go unless a route says otherwise; none: verified, journaled, answered 200. */
  forwardTo?: string;
  /** Event name -> URL. */
  routes?: Record<string, string>;
  /** Only these events are forwarded; the rest are answered 200 and journaled as skipped. */
  events?: readonly string[];
  /** Extra headers for the target (not journaled). */
  headers?: readonly (readonly [string, string])[];
  toleranceSeconds?: number;
  forwardTimeoutMs?: number;
  maxBodyBytes?: number;
  /** Request bodies held at once (default BODIES_IN_FLIGHT_BYTES). */
  maxBodiesBytes?: number;
  /** Size at which the file of rejected requests rotates (default REJECTED_MAX_BYTES). */
  rejectedMaxBytes?: number;
  /** Journal file path; null or absent: no journal. */
  journal?: string | null;
  /** Same as `journal`. */
  journalPath?: string | null;
  /** Called once per received request that had a full body (and for 413s), after it was answered. */
  onEvent?: (record: ListenRecord) => void;
  /** A journal write failed, or something unexpected happened handling a request. */
  onError?: (err: Error) => void;
}

/** What onEvent receives: the journal entry of the event. */
export type ListenRecord = JournalEntry;

export interface ListenerStats {
  received: number;
  forwarded: number;
  failed: number;
  rejected: number;
  skipped: number;
  /** Answered 503 because the bodies held at once were at their limit. */
  busy: number;
  in_flight: number;
}

export interface Listener {
  url: string;
  host: string;
  port: number;
  path: string;
  journalPath: string | null;
  stats(): ListenerStats;
  /** Stops accepting, waits for in-flight forwards, closes the journal. */
  close(): Promise<void>;
}

export class ListenStartError extends Error {
  override name = 'ListenStartError';
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

const JSON_TYPE = 'application/json; charset=utf-8';
const USER_AGENT = `svc/${VERSION} (webhook listen)`;
const EMPTY = Buffer.alloc(0);

export async function startListener(options: ListenOptions): Promise<Listener> {
  const host = options.host ?? '127.0.0.1';
  const path = normalizePath(options.path ?? '/');
  const cap = options.maxBodyBytes ?? MAX_BODY_BYTES;
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const events = options.events?.length ? new Set(options.events) : undefined;
  const routes = new Map(Object.entries(options.routes ?? {}));
  const extra = (options.headers ?? []).map(([k, v]) => [k.toLowerCase(), v] as const);
  const forwarder = new Forwarder({ timeoutMs: options.forwardTimeoutMs });
  const journalFile = options.journal ?? options.journalPath;
  const journal = journalFile ? await Journal.open(journalFile) : undefined;
  // Opened at the first rejected request: most listeners never see one.
  let rejectedJournal: Promise<Journal | undefined> | undefined;
  const onError = options.onError ?? (() => {});
  const budget = new BodyBudget(options.maxBodiesBytes ?? BODIES_IN_FLIGHT_BYTES);
  const stats: ListenerStats = { received: 0, forwarded: 0, failed: 0, rejected: 0, skipped: 0, busy: 0, in_flight: 0 };
  const inflight = new Set<Promise<void>>();
  let busySaid = 0;

  const report = (entry: ListenRecord) => {
    try {
      options.onEvent?.(entry);
    } catch (err) {
      onError(err as Error);
    }
  };
  /** Resolves true once the entry is on disk (or there is no journal); false, said, when it could not be written. */
  const commit = async (entry: ListenRecord): Promise<boolean> => {
    if (!journal) return true;
    try {
      await journal.append(entry);
      return true;
    } catch (err) {
      onError(err as Error);
      return false;
    }
  };
  /** Rejected requests: their own file, not waited for (nothing was acknowledged). */
  const keepRejected = (entry: ListenRecord) => {
    if (journalFile) {
      rejectedJournal ??= Journal.open(rejectedPath(journalFile), { maxBytes: options.rejectedMaxBytes ?? REJECTED_MAX_BYTES }).catch((err: Error) => {
        onError(err);
        return undefined;
      });
      void rejectedJournal.then((j) => j?.append(entry).catch((err: Error) => onError(err)));
    }
    report(entry);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const pathname = (req.url ?? '/').split('?')[0] ?? '/';
    if (normalizePath(pathname) !== path) {
      return reply(res, 404, { error: 'not_found', message: `este listener recibe notificaciones en ${path}` });
    }
    if (req.method === 'GET' || req.method === 'HEAD') {
      return reply(res, 200, {
        ok: true,
        name: 'svc webhook listen',
        version: VERSION,
        path,
        forward_to: options.forwardTo ?? null,
        ...stats,
        in_flight: stats.in_flight - 1, // not counting this request
        journal: journal ? journal.stats() : null,
      });
    }
    if (req.method !== 'POST') {
      res.setHeader('allow', 'GET, HEAD, POST');
      return reply(res, 405, { error: 'method_not_allowed', message: 'las notificaciones llegan por POST' });
    }

    const receivedAt = new Date().toISOString();
    const headers = keptHeaders(req.headers);
    const eventHeader = headerValue(req.headers['x-svc-event']);
    const timestamp = headerValue(req.headers['x-svc-timestamp']);
    const signature = headerValue(req.headers['x-svc-signature']);
    /** The entry of a request that is not a verified event: everything from it cut short. */
    const strange = (
      kept: Pick<JournalEntry, 'body' | 'body_encoding' | 'bytes' | 'body_truncated'>,
      summary: Pick<EventSummary, 'event' | 'cobro_id' | 'estado' | 'monto'>,
      verification: JournalEntry['verification'],
      outcome: Outcome,
      answered: number,
    ): ListenRecord => ({
      id: newEntryId(),
      received_at: receivedAt,
      source: 'listen',
      method: 'POST',
      path: clip(req.url ?? '/'),
      headers: clipHeaders(headers),
      ...kept,
      event: clipOrNull(summary.event),
      cobro_id: summary.cobro_id,
      estado: clipOrNull(summary.estado),
      monto: clipOrNull(summary.monto),
      verification,
      outcome,
      target: null,
      status: null,
      answered,
      latency_ms: null,
    });
    const tooLarge = (bytes: number) => {
      stats.received++;
      stats.rejected++;
      closeAfter(req, res);
      reply(res, 413, { error: 'payload_too_large', message: `el cuerpo supera ${cap} bytes` }, true);
      const message = `el cuerpo supera ${cap} bytes`;
      keepRejected(
        strange(
          { body: '', body_encoding: 'utf8', bytes },
          { event: eventHeader ?? null, cobro_id: null, estado: null, monto: null },
          { valid: false, reason: 'too_large', message },
          'too_large',
          413,
        ),
      );
    };
    const busy = () => {
      stats.busy++;
      closeAfter(req, res);
      res.setHeader('retry-after', '1');
      reply(res, 503, { error: 'busy', message: 'el listener tiene demasiados cuerpos en memoria a la vez; reintentá en un momento' }, true);
      const now = Date.now();
      if (now - busySaid > 10_000) {
        busySaid = now;
        onError(new Error(`más de ${Math.round(budget.limit / 1024 / 1024)} MiB de cuerpos a la vez: los pedidos que no entran se responden 503 (el remitente reintenta)`));
      }
    };
    const rejected = (body: Buffer, total: number, check: Extract<VerifyResult, { ok: false }>) => {
      stats.rejected++;
      reply(res, 401, { error: 'invalid_signature', reason: check.reason, message: check.message });
      const kept = encodePrefix(body, total);
      // What the summary shows comes from the kept start only (a cut body is no JSON: the header's event).
      const summary = summarize(kept.body_truncated ? EMPTY : body, eventHeader);
      keepRejected(strange(kept, summary, { valid: false, reason: check.reason, message: check.message }, 'rejected', 401));
    };

    const declaredText = headerValue(req.headers['content-length']);
    const declared = declaredText !== undefined && /^\d+$/.test(declaredText) ? Number(declaredText) : undefined;
    if (declared !== undefined && declared > cap) return tooLarge(declared);

    // Headers that fail on their own (missing, malformed, expired) fail whatever the
    // body: it is read to its end but never held, only its first bytes kept.
    const early = verify({ secret: options.secret, timestamp, signature, body: EMPTY, toleranceSeconds: tolerance });
    if (!early.ok && early.reason !== 'signature_mismatch') {
      const got = await readBody(req, cap, REJECTED_BODY_KEEP);
      if (got === 'too_large') return tooLarge(cap + 1);
      if (typeof got === 'string') return; // the sender went away mid-body ('busy' needs `grow`)
      stats.received++;
      return rejected(got.body, got.total, early);
    }

    let reserved = 0;
    if (declared !== undefined) {
      if (!budget.take(declared, declared <= SMALL_BODY_BYTES)) return busy();
      reserved = declared;
    }
    try {
      // Without a Content-Length the body takes from the budget as it arrives.
      const grow =
        declared === undefined
          ? (n: number) => {
              if (!budget.take(n, false)) return false;
              reserved += n;
              return true;
            }
          : undefined;
      const got = await readBody(req, cap, Infinity, grow, declared);
      if (got === 'aborted') return;
      if (got === 'too_large') return tooLarge(cap + 1);
      if (got === 'busy') return busy();
      await verified(req, res, got.body, receivedAt, headers, eventHeader, rejected);
    } finally {
      budget.give(reserved);
    }
  };

  const verified = async (
    req: IncomingMessage,
    res: ServerResponse,
    body: Buffer,
    receivedAt: string,
    headers: Record<string, string>,
    eventHeader: string | undefined,
    rejected: (prefix: Buffer, total: number, check: Extract<VerifyResult, { ok: false }>) => void,
  ): Promise<void> => {
    stats.received++;
    const check = verify({
      secret: options.secret,
      timestamp: headerValue(req.headers['x-svc-timestamp']),
      signature: headerValue(req.headers['x-svc-signature']),
      body,
      toleranceSeconds: tolerance,
    });
    // A forged body is never decoded whole: what is kept of it is its start.
    if (!check.ok) return rejected(body, body.length, check);
    const text = decodeUtf8(body);
    const summary = summarize(text ?? body, eventHeader);

    const kept = encodeBody(body, text);
    const entry = (outcome: Outcome, answered: number, target: string | null = null, result?: ForwardResult): ListenRecord => {
      const e: ListenRecord = {
        id: newEntryId(),
        received_at: receivedAt,
        source: 'listen',
        method: 'POST',
        path: req.url ?? '/',
        headers,
        body: kept.body,
        body_encoding: kept.body_encoding,
        bytes: kept.bytes,
        event: summary.event,
        cobro_id: summary.cobro_id,
        estado: summary.estado,
        monto: summary.monto,
        verification: { valid: true },
        outcome,
        target,
        status: result ? result.status : null,
        answered,
        latency_ms: result ? result.latencyMs : null,
      };
      if (result?.error) e.error = result.error;
      if (result && !result.ok && result.response?.length) e.response_start = startOf(result.response);
      return e;
    };
    /** Journals, then answers: a 2xx (or the app's answer) only once the line is on disk, else 503 so the sender retries. */
    const settle = async (e: ListenRecord, send: () => void) => {
      if (await commit(e)) send();
      else {
        e.answered = 503;
        reply(res, 503, { error: 'journal_unavailable', message: 'no se pudo guardar el evento en el journal; reintentá' });
      }
      report(e);
    };

    if (events && !(summary.event && events.has(summary.event))) {
      stats.skipped++;
      return settle(entry('skipped', 200), () => reply(res, 200, { skipped: true, message: 'evento filtrado por --events; no se reenvió' }));
    }
    const target = (summary.event ? routes.get(summary.event) : undefined) ?? options.forwardTo;
    if (!target) return settle(entry('received', 200), () => reply(res, 200, { received: true }));

    const out: Record<string, string> = { 'user-agent': USER_AGENT };
    for (const k in headers) out[k] = headers[k]!;
    for (const [k, v] of extra) out[k] = v;
    const result = await forwarder.forward(target, body, out);
    if (result.ok) stats.forwarded++;
    else stats.failed++;
    const status = relayStatus(result);
    const outcome = result.status === null ? 'unreachable' : result.ok ? 'forwarded' : 'target_error';
    return settle(entry(outcome, status, target, result), () => relay(res, result, status, forwarder.timeoutMs));
  };

  const server = createServer({ keepAliveTimeout: 5_000, requestTimeout: 60_000 }, (req, res) => {
    stats.in_flight++;
    const work = handle(req, res)
      .catch((err: Error) => {
        onError(err);
        if (!res.headersSent) reply(res, 500, { error: 'internal', message: 'error interno del listener' });
        else res.destroy();
      })
      .finally(() => {
        stats.in_flight--;
        inflight.delete(work);
      });
    inflight.add(work);
  });
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? DEFAULT_LISTEN_PORT, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    await journal?.close();
    await forwarder.close();
    const e = err as NodeJS.ErrnoException;
    const where = `${host}:${options.port ?? DEFAULT_LISTEN_PORT}`;
    const message =
      e.code === 'EADDRINUSE'
        ? `el puerto ${options.port ?? DEFAULT_LISTEN_PORT} ya está en uso en ${host}`
        : e.code === 'EADDRNOTAVAIL' || e.code === 'ENOTFOUND'
          ? `no se puede escuchar en ${where}: esa dirección no es de esta máquina`
          : e.code === 'EACCES'
            ? `sin permiso para escuchar en ${where}`
            : `no se pudo escuchar en ${where}: ${e.message}`;
    throw new ListenStartError(message, e.code);
  }
  server.on('error', (err) => onError(err));
  const port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;

  let closing: Promise<void> | undefined;
  return {
    url: `http://${shownHost}:${port}${path}`,
    host,
    port,
    path,
    journalPath: journal?.path ?? null,
    stats: () => ({ ...stats }),
    close() {
      closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        while (inflight.size) await Promise.allSettled([...inflight]);
        // Every answer is written: let kept-alive connections close on their own
        // (destroying one at once could drop an answer still queued), then force.
        server.closeIdleConnections();
        const grace = new Promise<void>((resolve) => setTimeout(resolve, 1_000).unref());
        await Promise.race([stopped, grace]);
        server.closeAllConnections();
        await stopped;
        await journal?.close();
        await (await rejectedJournal)?.close();
        await forwarder.close();
      })();
      return closing;
    },
  };
}

/** What the sender is answered for a forward: the target's status, 502 when there was none (or a 1xx). */
function relayStatus(result: ForwardResult): number {
  if (result.status === null) return 502;
  return result.status >= 200 && result.status <= 599 ? result.status : 502;
}

/** Answers the sender with the target's answer; a 502 that says why when there was none. */
function relay(res: ServerResponse, result: ForwardResult, status: number, timeoutMs: number): void {
  if (result.status === null) {
    return reply(res, 502, {
      error: 'target_unreachable',
      message: `no se pudo entregar a la app: ${result.error ?? 'sin respuesta'} (timeout ${formatSeconds(timeoutMs)})`,
    });
  }
  if (result.response && result.responseComplete && status !== 204 && status !== 304) {
    res.writeHead(status, { 'content-type': result.contentType ?? 'application/octet-stream', 'content-length': result.response.length });
    res.end(result.response);
  } else {
    res.writeHead(status, { 'content-length': 0 });
    res.end();
  }
}

function reply(res: ServerResponse, status: number, body: unknown, close = false): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': JSON_TYPE,
    'content-length': Buffer.byteLength(text),
    ...(close ? { connection: 'close' } : {}),
  });
  res.end(text);
}

/**
 * The bytes a listener lets a body hold, all requests together. Small bodies may use
 * the whole of it, larger ones three quarters: the rest stays free for real events.
 */
class BodyBudget {
  private held = 0;
  constructor(readonly limit: number) {}

  take(bytes: number, small: boolean): boolean {
    if (this.held + bytes > (small ? this.limit : Math.floor((this.limit * 3) / 4))) return false;
    this.held += bytes;
    return true;
  }

  give(bytes: number): void {
    this.held -= bytes;
  }
}

type BodyRead = { body: Buffer; total: number } | 'too_large' | 'busy' | 'aborted';

/**
 * Reads a body to its end keeping its first `keep` bytes (all of it: Infinity), or
 * stops with 'too_large' as soon as more than `cap` arrived, 'busy' when `grow` refuses
 * more bytes, 'aborted' when the sender went away. What is not kept is dropped as it
 * arrives.
 */
function readBody(req: IncomingMessage, cap: number, keep: number, grow?: (bytes: number) => boolean, expected?: number): Promise<BodyRead> {
  return new Promise((resolve) => {
    // With its length declared, the body is copied into one buffer as it arrives: the
    // socket's chunks are let go at once, never held twice (chunks, then their concatenation).
    const whole = keep === Infinity && expected !== undefined ? Buffer.allocUnsafe(expected) : undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    let stored = 0;
    let done = false;
    const finish = (value: BodyRead) => {
      if (done) return;
      done = true;
      req.off('data', onData);
      resolve(value);
    };
    const stop = (why: 'too_large' | 'busy') => {
      chunks.length = 0;
      finish(why);
      // The rest is discarded as it comes (the socket is closed soon after the answer).
      req.resume();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > cap) return stop('too_large');
      if (stored >= keep) return;
      if (whole) {
        // Node's parser holds a body to its Content-Length: it always fits.
        chunk.copy(whole, stored);
        stored += chunk.length;
        return;
      }
      if (grow && !grow(chunk.length)) return stop('busy');
      if (stored + chunk.length > keep) {
        // A copy: a slice would keep the socket's whole read buffer alive.
        chunks.push(Buffer.from(chunk.subarray(0, keep - stored)));
        stored = keep;
      } else {
        chunks.push(chunk);
        stored += chunk.length;
      }
    };
    req.on('data', onData);
    req.once('end', () => finish({ body: whole ? whole.subarray(0, stored) : Buffer.concat(chunks, stored), total: size }));
    req.once('error', () => finish('aborted'));
    req.once('close', () => {
      if (!req.complete) finish('aborted');
    });
  });
}

/** The answer closes the connection; a sender that keeps uploading is cut off 2 s later. */
function closeAfter(req: IncomingMessage, res: ServerResponse): void {
  res.shouldKeepAlive = false;
  const killer = setTimeout(() => req.socket.destroy(), 2_000);
  killer.unref();
  req.socket.once('close', () => clearTimeout(killer));
}

function clipOrNull(text: string | null): string | null {
  return text === null ? null : clip(text, 64);
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function startOf(data: Buffer): string {
  const text = data.subarray(0, 300).toString('utf8').replace(/\s+/g, ' ').trim();
  return data.length > 300 ? `${text}…` : text;
}

function normalizePath(p: string): string {
  const withSlash = p.startsWith('/') ? p : `/${p}`;
  return withSlash.length > 1 ? withSlash.replace(/\/+$/, '') : withSlash;
}
