// Starts the sandbox: opens (or creates) its state, listens on host:port and returns
// where it is, its keys and its secret. close() stops taking connections, lets the
// requests in flight finish, stops the notifications and closes the data file.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSandbox, type Coding, type SandboxApp } from './app.js';
import type { LogEntry } from './faults.js';
import type { Latitude } from './latitude.js';
import { SandboxStartError } from './sandbox-error.js';
import type { FileLayer } from '../durable.js';
import { Store, type Op } from './store.js';
import { DEFAULT_TZ, createClock } from './time.js';
import { DEFAULTS } from '../defaults.js';

export { SandboxStartError } from './sandbox-error.js';
export { DEFAULT_RETRY_SCHEDULE } from './dispatcher.js';

export const DEFAULT_READY_DELAY_MS = DEFAULTS.readyDelayMs;
/** Items per page of a /v1 list unless told otherwise (0: whole lists). */
export const DEFAULT_PAGE_SIZE = DEFAULTS.sandboxPageSize;
/** How long a request may take to arrive whole, and its headers. */
export const REQUEST_TIMEOUT_MS = 30_000;
export const REQUEST_HEADERS_TIMEOUT_MS = 15_000;

export interface SandboxOptions {
  host?: string;
  port?: number;
  /** Journal file; without it the state lives in memory. */
  dataFile?: string;
  /** Notification URL for both merchants (https, or http on loopback). */
  webhookUrl?: string;
  tz?: string;
  retrySchedule?: number[];
  readyDelayMs?: number;
  /** The sandbox's clock (tests move time by hand); Date.now by default. */
  now?: () => number;
  onRequest?: (entry: LogEntry) => void;
  onError?: (err: unknown) => void;
  /** Notices about the data file (a cut tail set aside, compaction, size), one line each. */
  onNotice?: (text: string) => void;
  /** Data file operations (tests inject a full disk); node:fs by default. */
  dataFs?: FileLayer;
  /** Past this size a start compacts a data file that is mostly superseded lines (default 64 MiB). */
  compactAtBytes?: number;
  /** Request bodies held at once, all requests together (default 32 MiB, body-budget.ts). */
  maxBodiesBytes?: number;
  /** How long a request may take to arrive whole (default REQUEST_TIMEOUT_MS). */
  requestTimeoutMs?: number;
  /** Check each /v1 reply against the endpoint table (tests: see SandboxAppOptions.checkReplies). */
  checkReplies?: boolean;
  /** Page the /v1 lists this many items at a time (SandboxAppOptions.pageSize); default DEFAULT_PAGE_SIZE, 0 whole. */
  pageSize?: number;
  /** Compress every /v1 answer with this coding (see SandboxAppOptions.compress). */
  compress?: Coding;
  /** Extra fields, offset dates, unlisted states in the answers (SandboxAppOptions.latitude). */
  latitude?: Latitude;
  /** Start by making a year of this many requests (generate.ts); the data must have none. */
  generate?: number;
}

export interface RunningSandbox {
  baseUrl: string;
  apiKey: string;
  apiKeyNoListo: string;
  /** The rehearsal merchant's live key; null for a data file written before it existed. */
  apiKeyLive: string | null;
  webhookSecret: string;
  /** What `generate` made, when asked. */
  generated?: import('./generate.js').Generated;
  /** The app behind the server (for tests: store, dispatcher). */
  app: SandboxApp;
  close(): Promise<void>;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const clock = createClock(options.tz ?? DEFAULT_TZ, options.now);
  const store = options.dataFile
    ? Store.open(options.dataFile, {
        fs: options.dataFs,
        onNotice: options.onNotice,
        compactAtBytes: options.compactAtBytes,
      })
    : Store.memory();
  try {
    // The clock goes on from where a previous run with this data file left it.
    clock.advance(store.clockOffset);
    let generated: import('./generate.js').Generated | undefined;
    if (options.generate !== undefined) {
      if (store.cobros.maxId > 0)
        throw new SandboxStartError(
          `--generar: ${options.dataFile ?? 'el sandbox'} ya tiene cobros; la historia se genera en un archivo de datos nuevo (otro --data)`,
        );
      const { generateYear } = await import('./generate.js');
      const deps = {
        store,
        clock,
        readyDelayMs: 0,
        baseUrl: () => 'http://127.0.0.1',
      } as unknown as import('./types.js').Deps;
      generated = generateYear(deps, store.meta.merchants[0]!, options.generate, clock.now());
    }
    if (options.webhookUrl !== undefined) {
      const { webhookUrl } = await import('./handlers/validate.js');
      const url = webhookUrl(
        options.webhookUrl,
        '--webhook-url',
        (m) => new SandboxStartError(m) as never,
      );
      const changed = store.meta.merchants.filter((m) => m.webhookUrl !== url);
      if (changed.length)
        store.commit(changed.map((m): Op => ['webhook', { merchant: m.id, url }]));
    }
    // A large data file's replay leaves hundreds of MB of garbage (read lines, grown
    // tables) that V8 may keep for minutes: one full collection now gives it back.
    if (options.dataFile && (store.cobros.size > 50_000 || generated)) await collectOnce();
    const app = createSandbox({
      store,
      clock,
      readyDelayMs: options.readyDelayMs ?? DEFAULT_READY_DELAY_MS,
      retrySchedule: options.retrySchedule,
      onRequest: options.onRequest,
      onError: options.onError,
      maxBodiesBytes: options.maxBodiesBytes,
      checkReplies: options.checkReplies,
      pageSize: options.pageSize ?? DEFAULT_PAGE_SIZE,
      compress: options.compress,
      latitude: options.latitude,
    });
    // A request has 30 s to arrive whole (headers within 15 s), not Node's 5 minutes: a
    // client that trickles its body, or never ends it, does not keep a connection for long.
    const requestTimeout = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
    const server = createServer(
      {
        keepAliveTimeout: 5000,
        headersTimeout: Math.min(REQUEST_HEADERS_TIMEOUT_MS, requestTimeout),
        requestTimeout,
        connectionsCheckingInterval: Math.min(5000, requestTimeout),
      },
      app.handle,
    );
    const host = options.host ?? DEFAULTS.host;
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err: NodeJS.ErrnoException) => {
        reject(
          err.code === 'EADDRINUSE'
            ? new SandboxStartError(
                `el puerto ${options.port} de ${host} ya está en uso (otro sandbox, u otro programa)`,
                `elegí otro con --port ${Math.min(65_535, (options.port ?? 0) + 1)}, o --port 0 para uno libre (el puerto elegido se muestra al arrancar)`,
              )
            : new SandboxStartError(
                `no se pudo escuchar en ${host}:${options.port ?? 0}: ${err.message}`,
              ),
        );
      });
      server.listen(options.port ?? 0, host, () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    const baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
    app.setBaseUrl(baseUrl);
    const [ready, notReady, rehearsal] = store.meta.merchants;
    let closing: Promise<void> | undefined;
    return {
      baseUrl,
      apiKey: ready!.apiKey,
      apiKeyNoListo: notReady!.apiKey,
      apiKeyLive: rehearsal?.apiKey ?? null,
      webhookSecret: store.webhookSecret,
      ...(generated ? { generated } : {}),
      app,
      close() {
        closing ??= new Promise<void>((resolve) => {
          // Idle keep-alive connections go now; busy ones when their answer is sent.
          const force = setTimeout(() => server.closeAllConnections(), 10_000);
          force.unref();
          // A keep-alive connection turns idle once its answer is sent: close it then.
          const idle = setInterval(() => server.closeIdleConnections(), 50);
          // The dashboard's live streams never end on their own: end them, so the
          // server can close once the other requests in flight are answered.
          app.deps.hub.close();
          server.close(() => {
            clearTimeout(force);
            clearInterval(idle);
            app.close();
            store.close();
            resolve();
          });
          server.closeIdleConnections();
        });
        return closing;
      },
    };
  } catch (err) {
    store.close();
    throw err;
  }
}

/**
 * One full garbage collection (about a second at a million requests); V8 hands the
 * freed pages back within seconds: the sandbox then holds 1.37 GB instead of 1.67 GB.
 * Node has no API for it outside --expose-gc; the flag set now gives a new context its
 * gc(). Nothing happens where that is not possible.
 */
async function collectOnce(): Promise<void> {
  try {
    const [{ setFlagsFromString }, { runInNewContext }] = await Promise.all([
      import('node:v8'),
      import('node:vm'),
    ]);
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as unknown;
    if (typeof gc === 'function') (gc as () => void)();
  } catch {
    // a collection is only a saving
  }
}
