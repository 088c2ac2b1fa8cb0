// One request to `svc webhook listen`, from its first byte to its answer: the path and
// method, the body read within its cap and the shared budget, the signature checked
// over the raw bytes, the filter, the forward to the app, the journal line made
// durable before any 2xx, and what a stranger's request costs (little). The server,
// its start and its close are listen.ts; the journal's lines are built in event-journal.ts.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BODIES_IN_FLIGHT_BYTES, BodyBudget, SMALL_BODY_BYTES } from '../body-budget.js';
import { VERSION } from '../version.js';
import { decodeUtf8, summarize } from './events.js';
import type { Forwarder, ForwardResult } from './forwarder.js';
import { formatSeconds } from './unreachable.js';
import {
  Journal,
  REJECTED_BODY_KEEP,
  REJECTED_MAX_BYTES,
  encodeBody,
  encodePrefix,
  eventEntry,
  keptHeaders,
  rejectedPath,
  strangeEntry,
  type Arrival,
  type KeptBody,
  type Outcome,
} from './event-journal.js';
import { DEFAULT_TOLERANCE_SECONDS, verify, type VerifyResult } from './signature.js';
import type { ListenerStats, ListenOptions, ListenRecord } from './listen-types.js';
import { maskTarget } from '../api/address.js';

export const MAX_BODY_BYTES = 1024 * 1024;
export { BODIES_IN_FLIGHT_BYTES, SMALL_BODY_BYTES } from '../body-budget.js';

const JSON_TYPE = 'application/json; charset=utf-8';
const USER_AGENT = `svc/${VERSION} (webhook listen)`;
const EMPTY = Buffer.alloc(0);

type Refusal = Extract<VerifyResult, { ok: false }>;

/** One request being answered, with what every step records about it. */
interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  arrival: Arrival;
  eventHeader: string | undefined;
}

/** Answers the requests of one listener; it keeps the counters the status page shows. */
export class NotificationHandler {
  readonly stats: ListenerStats = {
    received: 0,
    forwarded: 0,
    failed: 0,
    rejected: 0,
    skipped: 0,
    busy: 0,
    in_flight: 0,
  };
  private readonly path: string;
  private readonly cap: number;
  private readonly tolerance: number;
  private readonly events: Set<string> | undefined;
  private readonly routes: Map<string, string>;
  private readonly extra: (readonly [string, string])[];
  private readonly budget: BodyBudget;
  private readonly onError: (err: Error) => void;
  private readonly journalFile: string | null;
  // Opened at the first rejected request: most listeners never see one.
  private rejectedJournal: Promise<Journal | undefined> | undefined;
  private busySaid = 0;

  constructor(
    private readonly options: ListenOptions,
    private readonly forwarder: Forwarder,
    private readonly journal: Journal | undefined,
  ) {
    this.path = normalizePath(options.path ?? '/');
    this.cap = options.maxBodyBytes ?? MAX_BODY_BYTES;
    this.tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
    this.events = options.events?.length ? new Set(options.events) : undefined;
    this.routes = new Map(Object.entries(options.routes ?? {}));
    this.extra = (options.headers ?? []).map(([k, v]) => [k.toLowerCase(), v] as const);
    this.budget = new BodyBudget(options.maxBodiesBytes ?? BODIES_IN_FLIGHT_BYTES);
    this.onError = options.onError ?? (() => {});
    this.journalFile = options.journal ?? options.journalPath ?? null;
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const pathname = (req.url ?? '/').split('?')[0] ?? '/';
    if (normalizePath(pathname) !== this.path) {
      return reply(res, 404, {
        error: 'not_found',
        message: `este listener recibe notificaciones en ${this.path}`,
      });
    }
    if (req.method === 'GET' || req.method === 'HEAD') {
      return reply(res, 200, {
        ok: true,
        name: 'svc webhook listen',
        version: VERSION,
        path: this.path,
        // Served without authentication (and through a tunnel): never the target's credentials.
        forward_to: maskTarget(this.options.forwardTo ?? null),
        ...this.stats,
        in_flight: this.stats.in_flight - 1, // not counting this request
        journal: this.journal ? this.journal.stats() : null,
      });
    }
    if (req.method !== 'POST') {
      res.setHeader('allow', 'GET, HEAD, POST');
      return reply(res, 405, {
        error: 'method_not_allowed',
        message: 'las notificaciones llegan por POST',
      });
    }

    const x: Exchange = {
      req,
      res,
      arrival: {
        received_at: new Date().toISOString(),
        path: req.url ?? '/',
        headers: keptHeaders(req.headers),
      },
      eventHeader: headerValue(req.headers['x-svc-event']),
    };
    const declaredText = headerValue(req.headers['content-length']);
    const declared =
      declaredText !== undefined && /^\d+$/.test(declaredText) ? Number(declaredText) : undefined;
    if (declared !== undefined && declared > this.cap) return this.tooLarge(x, declared);

    // Headers that fail on their own (missing, malformed, expired) fail whatever the
    // body: it is read to its end but never held, only its first bytes kept.
    const early = this.check(req, EMPTY);
    if (!early.ok && early.reason !== 'signature_mismatch') {
      const got = await readBody(req, this.cap, REJECTED_BODY_KEEP);
      if (got === 'too_large') return this.tooLarge(x, this.cap + 1);
      if (typeof got === 'string') return; // the sender went away mid-body ('busy' needs `grow`)
      this.stats.received++;
      return this.rejected(x, got.body, got.total, early);
    }

    let reserved = 0;
    if (declared !== undefined) {
      if (!this.budget.take(declared, declared <= SMALL_BODY_BYTES)) return this.busy(x);
      reserved = declared;
    }
    try {
      // Without a Content-Length the body takes from the budget as it arrives.
      const grow =
        declared === undefined
          ? (n: number) => {
              if (!this.budget.take(n, false)) return false;
              reserved += n;
              return true;
            }
          : undefined;
      const got = await readBody(req, this.cap, Infinity, grow, declared);
      if (got === 'aborted') return;
      if (got === 'too_large') return this.tooLarge(x, this.cap + 1);
      if (got === 'busy') return this.busy(x);
      await this.received(x, got.body);
    } finally {
      this.budget.give(reserved);
    }
  }

  /** Closes the file of rejected requests, if one was opened. */
  async close(): Promise<void> {
    await (await this.rejectedJournal)?.close();
  }

  private check(req: IncomingMessage, body: Buffer): VerifyResult {
    return verify({
      secret: this.options.secret,
      timestamp: headerValue(req.headers['x-svc-timestamp']),
      signature: headerValue(req.headers['x-svc-signature']),
      body,
      toleranceSeconds: this.tolerance,
    });
  }

  /** A whole body within the cap: verified, filtered, forwarded, journaled, answered. */
  private async received(x: Exchange, body: Buffer): Promise<void> {
    this.stats.received++;
    const check = this.check(x.req, body);
    // A forged body is never decoded whole: what is kept of it is its start.
    if (!check.ok) return this.rejected(x, body, body.length, check);
    const text = decodeUtf8(body);
    const summary = summarize(text ?? body, x.eventHeader);
    // X-Svc-Event is not signed: routes and --events must never act on a header that
    // names another event than the signed body (svc webhook probar checks this too).
    if (x.eventHeader !== undefined && summary.json && summary.event !== x.eventHeader)
      return this.mismatched(x, body, summary.event);
    const kept = encodeBody(body, text);
    const entry = (
      outcome: Outcome,
      answered: number,
      target: string | null = null,
      result?: ForwardResult,
    ) => eventEntry(x.arrival, kept, summary, outcome, answered, target, result);

    if (this.events && !(summary.event && this.events.has(summary.event))) {
      this.stats.skipped++;
      return this.settle(x, entry('skipped', 200), () =>
        reply(x.res, 200, {
          skipped: true,
          message: 'evento filtrado por --events; no se reenvió',
        }),
      );
    }
    const target =
      (summary.event ? this.routes.get(summary.event) : undefined) ?? this.options.forwardTo;
    if (!target)
      return this.settle(x, entry('received', 200), () => reply(x.res, 200, { received: true }));

    const out: Record<string, string> = { 'user-agent': USER_AGENT };
    for (const k in x.arrival.headers) out[k] = x.arrival.headers[k]!;
    for (const [k, v] of this.extra) out[k] = v;
    const result = await this.forwarder.forward(target, body, out);
    if (result.ok) this.stats.forwarded++;
    else this.stats.failed++;
    const status = relayStatus(result);
    const outcome =
      result.status === null ? 'unreachable' : result.ok ? 'forwarded' : 'target_error';
    return this.settle(x, entry(outcome, status, target, result), () =>
      relay(x.res, result, status, this.forwarder.timeoutMs),
    );
  }

  /** Journals, then answers: a 2xx (or the app's answer) only once the line is on disk, else 503 so the sender retries. */
  private async settle(x: Exchange, e: ListenRecord, send: () => void): Promise<void> {
    if (await this.commit(e)) send();
    else {
      e.answered = 503;
      reply(x.res, 503, {
        error: 'journal_unavailable',
        message: 'no se pudo guardar el evento en el journal; reintentá',
      });
    }
    this.report(e);
  }

  /** Resolves true once the entry is on disk (or there is no journal); false, said, when it could not be written. */
  private async commit(entry: ListenRecord): Promise<boolean> {
    if (!this.journal) return true;
    try {
      await this.journal.append(entry);
      return true;
    } catch (err) {
      this.onError(err as Error);
      return false;
    }
  }

  private report(entry: ListenRecord): void {
    try {
      this.options.onEvent?.(entry);
    } catch (err) {
      this.onError(err as Error);
    }
  }

  /** Rejected requests: their own file, not waited for (nothing was acknowledged). */
  private keepRejected(entry: ListenRecord): void {
    if (this.journalFile) {
      this.rejectedJournal ??= Journal.open(rejectedPath(this.journalFile), {
        maxBytes: this.options.rejectedMaxBytes ?? REJECTED_MAX_BYTES,
        generations: 2,
        index: true,
      }).catch((err: Error) => {
        this.onError(err);
        return undefined;
      });
      void this.rejectedJournal.then((j) =>
        j?.append(entry).catch((err: Error) => this.onError(err)),
      );
    }
    this.report(entry);
  }

  private rejected(x: Exchange, body: Buffer, total: number, check: Refusal): void {
    this.stats.rejected++;
    reply(x.res, 401, { error: 'invalid_signature', reason: check.reason, message: check.message });
    const kept = encodePrefix(body, total);
    // What the summary shows comes from the kept start only (a cut body is no JSON: the header's event).
    const summary = summarize(kept.body_truncated ? EMPTY : body, x.eventHeader);
    this.keepRejected(
      strangeEntry(
        x.arrival,
        kept,
        summary,
        { valid: false, reason: check.reason, message: check.message },
        'rejected',
        401,
      ),
    );
  }

  private mismatched(x: Exchange, body: Buffer, bodyEvent: string | null): void {
    this.stats.rejected++;
    const message = `X-Svc-Event dice ${JSON.stringify(x.eventHeader)} y el cuerpo firmado dice ${JSON.stringify(bodyEvent)}`;
    reply(x.res, 400, { error: 'event_mismatch', message });
    const kept = encodePrefix(body, body.length);
    const summary = summarize(kept.body_truncated ? EMPTY : body, x.eventHeader);
    this.keepRejected(
      strangeEntry(
        x.arrival,
        kept,
        summary,
        { valid: false, reason: 'event_mismatch', message },
        'rejected',
        400,
      ),
    );
  }

  private tooLarge(x: Exchange, bytes: number): void {
    this.stats.received++;
    this.stats.rejected++;
    closeAfter(x.req, x.res);
    const message = `el cuerpo supera ${this.cap} bytes`;
    reply(x.res, 413, { error: 'payload_too_large', message }, true);
    const kept: KeptBody = { body: '', body_encoding: 'utf8', bytes };
    const summary = { event: x.eventHeader ?? null, cobro_id: null, estado: null, monto: null };
    this.keepRejected(
      strangeEntry(
        x.arrival,
        kept,
        summary,
        { valid: false, reason: 'too_large', message },
        'too_large',
        413,
      ),
    );
  }

  private busy(x: Exchange): void {
    this.stats.busy++;
    closeAfter(x.req, x.res);
    x.res.setHeader('retry-after', '1');
    reply(
      x.res,
      503,
      {
        error: 'busy',
        message:
          'el listener tiene demasiados cuerpos en memoria a la vez; reintentá en un momento',
      },
      true,
    );
    const now = Date.now();
    if (now - this.busySaid > 10_000) {
      this.busySaid = now;
      this.onError(
        new Error(
          `más de ${Math.round(this.budget.limit / 1024 / 1024)} MiB de cuerpos a la vez: los pedidos que no entran se responden 503 (el remitente reintenta)`,
        ),
      );
    }
  }
}

/** What the sender is answered for a forward: the target's status, 502 when there was none (or a 1xx). */
function relayStatus(result: ForwardResult): number {
  if (result.status === null) return 502;
  return result.status >= 200 && result.status <= 599 ? result.status : 502;
}

/** Answers the sender with the target's answer; a 502 that says why when there was none. */
function relay(
  res: ServerResponse,
  result: ForwardResult,
  status: number,
  timeoutMs: number,
): void {
  if (result.status === null) {
    return reply(res, 502, {
      error: 'target_unreachable',
      // The reason says it all: "sin respuesta en 10 s" for a timeout, "conexión rechazada…" for a refusal.
      message: `no se pudo entregar a la app: ${result.error ?? `sin respuesta en ${formatSeconds(timeoutMs)}`}`,
    });
  }
  if (result.response && result.responseComplete && status !== 204 && status !== 304) {
    res.writeHead(status, {
      'content-type': result.contentType ?? 'application/octet-stream',
      'content-length': result.response.length,
    });
    res.end(result.response);
  } else {
    res.writeHead(status, { 'content-length': 0 });
    res.end();
  }
}

export function reply(res: ServerResponse, status: number, body: unknown, close = false): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': JSON_TYPE,
    'content-length': Buffer.byteLength(text),
    ...(close ? { connection: 'close' } : {}),
  });
  res.end(text);
}

type BodyRead = { body: Buffer; total: number } | 'too_large' | 'busy' | 'aborted';

/**
 * Reads a body to its end keeping its first `keep` bytes (all of it: Infinity), or
 * stops with 'too_large' as soon as more than `cap` arrived, 'busy' when `grow` refuses
 * more bytes, 'aborted' when the sender went away. What is not kept is dropped as it
 * arrives.
 */
function readBody(
  req: IncomingMessage,
  cap: number,
  keep: number,
  grow?: (bytes: number) => boolean,
  expected?: number,
): Promise<BodyRead> {
  return new Promise((resolve) => {
    // With its length declared, the body is copied into one buffer as it arrives: the
    // socket's chunks are let go at once, never held twice (chunks, then their concatenation).
    const whole =
      keep === Infinity && expected !== undefined ? Buffer.allocUnsafe(expected) : undefined;
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
    req.once('end', () =>
      finish({
        body: whole ? whole.subarray(0, stored) : Buffer.concat(chunks, stored),
        total: size,
      }),
    );
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

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export function normalizePath(p: string): string {
  const withSlash = p.startsWith('/') ? p : `/${p}`;
  return withSlash.length > 1 ? withSlash.replace(/\/+$/, '') : withSlash;
}
