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
// Usable in-process: startListener(options) -> { url, port, close() }. This file is the
// server (start, status, close); one request's way through it is receive.ts.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Forwarder } from './forwarder.js';
import { Journal, journalSizes } from './event-journal.js';
import type { ListenerStats, ListenOptions } from './listen-types.js';
import { NotificationHandler, normalizePath, reply } from './receive.js';

export type { ListenerStats, ListenOptions, ListenRecord } from './listen-types.js';

export { BODIES_IN_FLIGHT_BYTES, MAX_BODY_BYTES, SMALL_BODY_BYTES } from './receive.js';

export const DEFAULT_LISTEN_PORT = 4242;

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

export async function startListener(options: ListenOptions): Promise<Listener> {
  const host = options.host ?? '127.0.0.1';
  const path = normalizePath(options.path ?? '/');
  const forwarder = new Forwarder({
    timeoutMs: options.forwardTimeoutMs,
    network: options.network,
  });
  const journalFile = options.journal ?? options.journalPath;
  const journal = journalFile
    ? await Journal.open(journalFile, {
        ...(options.journalKeepBytes === undefined ? {} : journalSizes(options.journalKeepBytes)),
        index: true,
      })
    : undefined;
  const onError = options.onError ?? (() => {});
  const handler = new NotificationHandler(options, forwarder, journal);
  const inflight = new Set<Promise<void>>();

  const server = createServer({ keepAliveTimeout: 5_000, requestTimeout: 60_000 }, (req, res) => {
    handler.stats.in_flight++;
    const work = handler
      .handle(req, res)
      .catch((err: Error) => {
        onError(err);
        if (!res.headersSent)
          reply(res, 500, { error: 'internal', message: 'error interno del listener' });
        else res.destroy();
      })
      .finally(() => {
        handler.stats.in_flight--;
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
    stats: () => ({ ...handler.stats }),
    close() {
      closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        while (inflight.size) await Promise.allSettled(inflight);
        // Every answer is written: let kept-alive connections close on their own
        // (destroying one at once could drop an answer still queued), then force.
        server.closeIdleConnections();
        const grace = new Promise<void>((resolve) => setTimeout(resolve, 1_000).unref());
        await Promise.race([stopped, grace]);
        server.closeAllConnections();
        await stopped;
        await journal?.close();
        await handler.close();
        await forwarder.close();
      })();
      return closing;
    },
  };
}
