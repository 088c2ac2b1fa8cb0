// The local receiver behind `svc webhook listen` (and `svc demo`): for each POST on its
// path it reads the raw body (capped), verifies the signature over those bytes,
// filters by event, forwards the bytes unchanged with Content-Type and every X-Svc-*
// header to the target, answers the sender with the target's status (502 when the
// target is down or slow, so the service retries), journals the event and reports it.
// Usable in-process: startListener(options) -> { url, port, close() }.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { VERSION } from '../version.js';
import { summarize } from './events.js';
import { Forwarder, type ForwardResult, formatSeconds } from './forwarder.js';
import { Journal, encodeBody, keptHeaders, newEntryId, type JournalEntry, type Outcome } from './journal.js';
import { DEFAULT_TOLERANCE_SECONDS, verify } from './signature.js';

export const DEFAULT_LISTEN_PORT = 4242;
export const MAX_BODY_BYTES = 1024 * 1024;

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

export async function startListener(options: ListenOptions): Promise<Listener> {
  const host = options.host ?? '127.0.0.1';
  const path = normalizePath(options.path ?? '/');
  const cap = options.maxBodyBytes ?? MAX_BODY_BYTES;
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const events = options.events?.length ? new Set(options.events) : undefined;
  const routes = new Map(Object.entries(options.routes ?? {}));
  const extra = (options.headers ?? []).map(([k, v]) => [k, v] as const);
  const forwarder = new Forwarder({ timeoutMs: options.forwardTimeoutMs });
  const journalFile = options.journal ?? options.journalPath;
  const journal = journalFile ? await Journal.open(journalFile) : undefined;
  const onError = options.onError ?? (() => {});
  const stats: ListenerStats = { received: 0, forwarded: 0, failed: 0, rejected: 0, skipped: 0, in_flight: 0 };
  const inflight = new Set<Promise<void>>();

  const record = (entry: ListenRecord) => {
    journal?.append(entry).catch((err: Error) => onError(err));
    try {
      options.onEvent?.(entry);
    } catch (err) {
      onError(err as Error);
    }
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
      });
    }
    if (req.method !== 'POST') {
      res.setHeader('allow', 'GET, HEAD, POST');
      return reply(res, 405, { error: 'method_not_allowed', message: 'las notificaciones llegan por POST' });
    }

    const receivedAt = new Date().toISOString();
    const base = () => ({
      id: newEntryId(),
      received_at: receivedAt,
      source: 'listen' as const,
      method: 'POST',
      path: req.url ?? '/',
      headers: keptHeaders(req.headers),
    });
    const tooLarge = (bytes: number) => {
      stats.received++;
      stats.rejected++;
      // Answer at once and close: the rest of the body is never buffered.
      res.shouldKeepAlive = false;
      reply(res, 413, { error: 'payload_too_large', message: `el cuerpo supera ${cap} bytes` }, true);
      const killer = setTimeout(() => req.socket.destroy(), 2_000);
      killer.unref();
      req.socket.once('close', () => clearTimeout(killer));
      record({
        ...base(),
        body: '',
        body_encoding: 'utf8',
        bytes,
        event: headerValue(req.headers['x-svc-event']) ?? null,
        cobro_id: null,
        estado: null,
        monto: null,
        verification: { valid: false, reason: 'too_large', message: `el cuerpo supera ${cap} bytes` },
        outcome: 'too_large',
        target: null,
        status: null,
        answered: 413,
        latency_ms: null,
      });
    };

    const declared = headerValue(req.headers['content-length']);
    if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > cap) return tooLarge(Number(declared));
    const body = await readCapped(req, cap);
    if (body === 'too_large') return tooLarge(cap + 1);
    if (body === 'aborted') return; // the sender went away mid-body: nothing was received

    stats.received++;
    const summary = summarize(body, headerValue(req.headers['x-svc-event']));
    const check = verify({
      secret: options.secret,
      timestamp: headerValue(req.headers['x-svc-timestamp']),
      signature: headerValue(req.headers['x-svc-signature']),
      body,
      toleranceSeconds: tolerance,
    });
    const entry = (outcome: Outcome, rest: Partial<ListenRecord>): ListenRecord => ({
      ...base(),
      ...encodeBody(body),
      event: summary.event,
      cobro_id: summary.cobro_id,
      estado: summary.estado,
      monto: summary.monto,
      verification: check.ok ? { valid: true } : { valid: false, reason: check.reason, message: check.message },
      outcome,
      target: null,
      status: null,
      answered: null,
      latency_ms: null,
      ...rest,
    });

    if (!check.ok) {
      stats.rejected++;
      reply(res, 401, { error: 'invalid_signature', reason: check.reason, message: check.message });
      return record(entry('rejected', { answered: 401 }));
    }
    if (events && !(summary.event && events.has(summary.event))) {
      stats.skipped++;
      reply(res, 200, { skipped: true, message: 'evento filtrado por --events; no se reenvió' });
      return record(entry('skipped', { answered: 200 }));
    }
    const target = (summary.event ? routes.get(summary.event) : undefined) ?? options.forwardTo;
    if (!target) {
      reply(res, 200, { received: true });
      return record(entry('received', { answered: 200 }));
    }

    const headers: Record<string, string> = { 'user-agent': `svc/${VERSION} (webhook listen)` };
    for (const [k, v] of Object.entries(keptHeaders(req.headers))) headers[k] = v;
    for (const [k, v] of extra) headers[k.toLowerCase()] = v;
    const result = await forwarder.forward(target, body, headers);
    const answered = relay(res, result, forwarder.timeoutMs);
    if (result.ok) stats.forwarded++;
    else stats.failed++;
    record(
      entry(result.status === null ? 'unreachable' : result.ok ? 'forwarded' : 'target_error', {
        target,
        status: result.status,
        answered,
        latency_ms: result.latencyMs,
        ...(result.error ? { error: result.error } : {}),
        ...(!result.ok && result.response?.length ? { response_start: startOf(result.response) } : {}),
      }),
    );
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
        await forwarder.close();
      })();
      return closing;
    },
  };
}

/** Answers the sender with the target's status; 502 when there was none. Returns the status sent. */
function relay(res: ServerResponse, result: ForwardResult, timeoutMs: number): number {
  if (result.status === null) {
    reply(res, 502, {
      error: 'target_unreachable',
      message: `no se pudo entregar a la app: ${result.error ?? 'sin respuesta'} (timeout ${formatSeconds(timeoutMs)})`,
    });
    return 502;
  }
  // A status Node cannot send as a final answer (1xx) is a failure of the target.
  const status = result.status >= 200 && result.status <= 599 ? result.status : 502;
  if (result.response && result.responseComplete && status !== 204 && status !== 304) {
    res.writeHead(status, { 'content-type': result.contentType ?? 'application/octet-stream', 'content-length': result.response.length });
    res.end(result.response);
  } else {
    res.writeHead(status, { 'content-length': 0 });
    res.end();
  }
  return status;
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

/** The body, or 'too_large' as soon as more than `cap` bytes arrived, or 'aborted'. */
function readCapped(req: IncomingMessage, cap: number): Promise<Buffer | 'too_large' | 'aborted'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (value: Buffer | 'too_large' | 'aborted') => {
      if (done) return;
      done = true;
      req.off('data', onData);
      resolve(value);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > cap) {
        chunks.length = 0;
        finish('too_large');
        // Discard the rest without keeping it (the socket is closed soon after the 413).
        req.resume();
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => finish(Buffer.concat(chunks, size)));
    req.once('error', () => finish('aborted'));
    req.once('close', () => {
      if (!req.complete) finish('aborted');
    });
  });
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
