// How the client speaks HTTP: one request per attempt over node:http or node:https,
// no redirect followed (it would carry the key wherever it points), the answer read
// whole up to a cap (a reply past it is refused as it arrives, never held: one over
// 512 MiB could not even become a string). Node's built-in fetch does the same but loads undici on its first call,
// which every command would pay: about 170 ms and 40 MB on Node 20, 20 ms on Node 24.
// A caller's own fetch (ClientOptions.fetch) goes through the same shape.
// Behind a proxy (network.ts) a request goes to the proxy instead: the whole address
// as its path for http, a CONNECT tunnel with TLS inside it for https; net and tls
// are loaded only then, so a command with no proxy pays nothing for it.
import {
  Agent as HttpAgent,
  request as httpRequest,
  type ClientRequest,
  type IncomingMessage,
  type RequestOptions,
} from 'node:http';
import type { Socket } from 'node:net';
import {
  ProxyError,
  proxyAuthError,
  proxyAuthorization,
  proxyUnreachable,
  type Network,
  type ProxyRoute,
} from './network.js';

export interface Exchange {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
  /** Most bytes of a reply body read; past it the reply is dropped with ReplyTooLargeError. */
  maxBytes: number;
  /** Called once the request is handed to the socket layer: from then on it may reach the service. */
  onDispatch?: () => void;
  /** Called with a 2xx answer's headers as they arrive, before its body is read. */
  onHead?: (headers: Record<string, string | string[] | undefined>) => void;
  /** The proxy and CA settings; none: straight, trusting Node's certificates. */
  network?: Network;
  /**
   * Receives a 2xx body's bytes as they arrive (a list read as it comes, list.ts
   * ListStream); past maxBytes the body's text is no longer kept (Reply.overflow)
   * but the sink goes on receiving it.
   */
  sink?: {
    push(chunk: Uint8Array): boolean;
    keepsText(): boolean;
    tooLarge: boolean;
    /** The sink has what it wanted: the rest of the body is not read (the connection is closed). */
    enough?: boolean;
  };
}

/** The reply's body is larger than Exchange.maxBytes (declared, or seen while reading). */
export class ReplyTooLargeError extends Error {
  override name = 'ReplyTooLargeError';
  readonly code = 'SVC_REPLY_TOO_LARGE';
  constructor(
    readonly limit: number,
    /** Bytes announced by Content-Length, when that is how it was known. */
    readonly declared?: number,
  ) {
    super(`reply over ${limit} bytes`);
  }
}

function declaredLength(value: string | string[] | null | undefined): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  return v && /^\d+$/.test(v.trim()) ? Number(v.trim()) : undefined;
}

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body went past maxBytes into a sink: `text` is empty, the sink has it all. */
  overflow?: boolean;
}

/** Sends one request; rejects with the socket's error (code ECONNREFUSED, ENOTFOUND, ECONNRESET…) or the abort. */
export function send(url: URL, x: Exchange): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const headers =
      x.body === undefined
        ? x.headers
        : { ...x.headers, 'content-length': String(Buffer.byteLength(x.body)) };
    let opened: Opened;
    try {
      // A GET may go on a connection an earlier GET left open (a list's next page); a
      // write always opens its own, so a connection the service had just closed can
      // never make a write's outcome unknown.
      opened = openRequest(
        url,
        { method: x.method, headers, signal: x.signal },
        x.network,
        x.method === 'GET',
      );
    } catch (err) {
      reject(err);
      return;
    }
    const { req, proxy } = opened;
    req.once('error', reject);
    req.once('response', (res) => {
      if (proxy && res.statusCode === 407) {
        res.resume();
        reject(proxyAuthError(proxy));
        return;
      }
      const status = res.statusCode ?? 0;
      const sink = status >= 200 && status < 300 ? x.sink : undefined;
      if (status >= 200 && status < 300) x.onHead?.(res.headers);
      // Refused before reading when the size is announced; else counted as it comes.
      const declared = declaredLength(res.headers['content-length']);
      if (!sink && declared !== undefined && declared > x.maxBytes) {
        reject(new ReplyTooLargeError(x.maxBytes, declared));
        res.destroy();
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      let overflow = false;
      // A compressed body is counted as it is decoded: the cap holds for what svc reads.
      const body = decoded(res, res.headers['content-encoding']);
      const tooLarge = () => {
        chunks.length = 0;
        reject(new ReplyTooLargeError(x.maxBytes));
        res.destroy();
        body.destroy();
      };
      body.on('data', (chunk: Buffer) => {
        if (sink) {
          // The text is kept only until the items start (the sink has them); a body that
          // turns out to be no list is read on up to the cap, an item past it not at all.
          const fine = sink.push(chunk);
          size += chunk.length;
          if (sink.enough) {
            resolve({ status, headers: res.headers, text: '', overflow: true });
            res.destroy();
            body.destroy();
            return;
          }
          if (sink.tooLarge || (!fine && size > x.maxBytes)) return tooLarge();
          if (overflow) return;
          if (!sink.keepsText() && fine) {
            overflow = true;
            chunks.length = 0;
          } else if (size > x.maxBytes) tooLarge();
          else chunks.push(chunk);
          return;
        }
        if (size > x.maxBytes) return;
        size += chunk.length;
        if (size > x.maxBytes) {
          chunks.length = 0;
          reject(new ReplyTooLargeError(x.maxBytes));
          res.destroy();
          body.destroy();
          return;
        }
        chunks.push(chunk);
      });
      res.once('error', reject);
      if (body !== res) body.once('error', reject);
      body.once('end', () =>
        resolve({
          status,
          headers: res.headers,
          text: overflow ? '' : Buffer.concat(chunks).toString('utf8'),
          ...(overflow ? { overflow } : {}),
        }),
      );
      // The connection closed before the answer was whole (a no-op after a rejection above).
      res.once('close', () => {
        if (!res.complete)
          reject(
            Object.assign(new Error('la conexión se cerró a mitad de la respuesta'), {
              code: 'ECONNRESET',
            }),
          );
      });
    });
    x.onDispatch?.();
    req.end(x.body);
  });
}

/**
 * The body as sent, decoded when the service compressed it anyway (gzip, deflate, br)
 * although svc asks for `Accept-Encoding: identity`; any other coding is left as is.
 * fetch decodes on its own.
 */
function decoded(
  res: import('node:http').IncomingMessage,
  encoding: string | undefined,
): import('node:stream').Readable {
  const coding = (encoding ?? '').trim().toLowerCase();
  if (coding === '' || coding === 'identity') return res;
  const zlib = process.getBuiltinModule('node:zlib');
  const decoder =
    coding === 'gzip' || coding === 'x-gzip'
      ? zlib.createGunzip()
      : coding === 'deflate'
        ? zlib.createInflate()
        : coding === 'br'
          ? zlib.createBrotliDecompress()
          : undefined;
  return decoder ? res.pipe(decoder) : res;
}

/** The same exchange through a fetch the caller supplied. */
export async function sendWithFetch(
  fetchImpl: typeof fetch,
  url: URL,
  x: Exchange,
): Promise<Reply> {
  x.onDispatch?.();
  const res = await fetchImpl(url, {
    method: x.method,
    headers: x.headers,
    body: x.body,
    signal: x.signal,
    redirect: 'manual',
  });
  const declared = declaredLength(res.headers.get('content-length'));
  if (declared !== undefined && declared > x.maxBytes) {
    await res.body?.cancel().catch(() => {});
    throw new ReplyTooLargeError(x.maxBytes, declared);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (res.body) {
    const reader = res.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > x.maxBytes) {
        await reader.cancel().catch(() => {});
        throw new ReplyTooLargeError(x.maxBytes);
      }
      chunks.push(value);
    }
  }
  const text = Buffer.concat(chunks).toString('utf8');
  return { status: res.status, headers: Object.fromEntries(res.headers), text };
}

/**
 * How long a connection left open waits for the next request before it is closed: less
 * than the 5 s servers commonly keep one (Node's default), so svc is not the one to find
 * it closed. An idle one never keeps svc running (Node's agent unrefs it).
 */
const KEPT_IDLE_MS = 4_000;
const keptAgents = new WeakMap<object, { http?: HttpAgent; https?: HttpAgent }>();
const NO_NETWORK = {};

/**
 * The agent whose connections GETs share (a paged list's 200 pages on one connection,
 * and one TLS handshake, not 200): one per network settings (its CA bundle), per scheme.
 */
function keptAgent(
  secure: boolean,
  network: Network | undefined,
  ca: string[] | undefined,
): HttpAgent {
  const key = network ?? NO_NETWORK;
  let agents = keptAgents.get(key);
  if (!agents) keptAgents.set(key, (agents = {}));
  const options = { keepAlive: true, timeout: KEPT_IDLE_MS, maxSockets: 8 };
  if (secure)
    return (agents.https ??= new (process.getBuiltinModule('node:https').Agent)({
      ...options,
      ...(ca ? { ca } : {}),
    }));
  return (agents.http ??= new HttpAgent(options));
}

/** A request opened by openRequest, and the proxy it goes through. */
export interface Opened {
  req: ClientRequest;
  proxy?: ProxyRoute;
}

/**
 * A request to `url` (options as node:http's, without agent or host), straight or
 * through the network's proxy, trusting its CA bundle. Errors on the way to the
 * proxy come out as the request's 'error', as ProxyError; a 407 answer to a plain
 * http request is the caller's to turn into one (proxyAuthError). Throws ProxyError
 * for a proxy setting that cannot be used and CaFileError for a bundle that cannot be read.
 */
export function openRequest(
  url: URL,
  options: RequestOptions,
  network?: Network,
  reuse = false,
): Opened {
  const proxy = network?.route(url);
  const secure = url.protocol === 'https:';
  const ca = secure && network?.ca ? caBundle(network) : undefined;
  // TLS is loaded only for an https address: against the sandbox (plain http on
  // loopback) it is a good part of a call's start-up (#16).
  if (!proxy) {
    const request = secure ? process.getBuiltinModule('node:https').request : httpRequest;
    const agent = reuse ? keptAgent(secure, network, ca) : false;
    return { req: request(url, { ...options, agent, ...(ca ? { ca } : {}) }) };
  }
  const signal = options.signal ?? undefined;
  if (!secure) {
    // Plain http: the proxy gets the whole address as the path.
    const req = httpRequest(url, {
      ...options,
      path: url.href,
      headers: { ...(options.headers as Record<string, string>), ...proxyAuthorization(proxy.url) },
      agent: undefined,
      // Made asynchronously: nothing is returned, the socket comes through `done`.
      createConnection: (_o, done) => {
        connectProxy(proxy, signal, done);
        return undefined;
      },
    });
    return { req, proxy };
  }
  const req = process.getBuiltinModule('node:https').request(url, {
    ...options,
    agent: undefined,
    createConnection: (_o, done) => {
      connectProxy(proxy, signal, (err, socket) => {
        if (err) done(err, socket);
        else tunnel(url, proxy, socket, ca, signal, done);
      });
      return undefined;
    },
  });
  return { req, proxy };
}

type Done = (err: Error | null, socket: Socket) => void;

/** A TCP connection to the proxy; a failure to reach it is a ProxyError naming it. */
function connectProxy(proxy: ProxyRoute, signal: AbortSignal | undefined, done: Done): void {
  const net = process.getBuiltinModule('node:net');
  let finished = false;
  const finish = (err: Error | null, socket: Socket) => {
    if (finished) return;
    finished = true;
    signal?.removeEventListener('abort', onAbort);
    done(err, socket);
  };
  const socket = net.connect({
    host: proxy.url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: Number(proxy.url.port || 80),
  });
  const onAbort = () => {
    socket.destroy();
    finish(Object.assign(new Error('aborted'), { name: 'AbortError', code: 'ABORT_ERR' }), socket);
  };
  if (signal?.aborted) return onAbort();
  signal?.addEventListener('abort', onAbort, { once: true });
  socket.once('connect', () => finish(null, socket));
  socket.once('error', (err: NodeJS.ErrnoException) =>
    finish(proxyUnreachable(proxy, err.code), socket),
  );
}

/** CONNECT host:port over a connection to the proxy, then TLS to the service inside the tunnel. */
function tunnel(
  url: URL,
  proxy: ProxyRoute,
  socket: Socket,
  ca: string[] | undefined,
  signal: AbortSignal | undefined,
  done: Done,
): void {
  const authority = `${url.hostname}:${url.port || 443}`;
  let finished = false;
  const onAbort = () =>
    fail(Object.assign(new Error('aborted'), { name: 'AbortError', code: 'ABORT_ERR' }));
  const fail = (err: Error) => {
    if (finished) return;
    finished = true;
    signal?.removeEventListener('abort', onAbort);
    socket.destroy();
    done(err, socket);
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  const connect = httpRequest({
    method: 'CONNECT',
    path: authority,
    headers: { host: authority, ...proxyAuthorization(proxy.url) },
    createConnection: () => socket,
  });
  const refused = (res: IncomingMessage) => {
    res.resume();
    fail(
      res.statusCode === 407
        ? proxyAuthError(proxy)
        : new ProxyError(
            'refused',
            proxy,
            `el proxy ${proxy.shown} no abrió el camino a ${url.host} (HTTP ${res.statusCode})`,
            res.statusCode,
          ),
    );
  };
  connect.once('connect', (res: IncomingMessage, tunnelled: Socket, head: Buffer) => {
    if (res.statusCode !== 200) return refused(res);
    if (finished) return;
    finished = true;
    signal?.removeEventListener('abort', onAbort);
    if (head.length) tunnelled.unshift(head);
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const tls = process.getBuiltinModule('node:tls');
    const net = process.getBuiltinModule('node:net');
    done(
      null,
      tls.connect({
        socket: tunnelled,
        servername: net.isIP(host) ? undefined : host,
        ...(ca ? { ca } : {}),
      }),
    );
  });
  connect.once('response', refused);
  connect.once('error', (err: NodeJS.ErrnoException) => fail(proxyUnreachable(proxy, err.code)));
  connect.end();
}

/** The CA bundle named by the network could not be read. */
export class CaFileError extends Error {
  override name = 'CaFileError';
  readonly code = 'SVC_CA_FILE';
}

const bundles = new Map<string, string[]>();

/**
 * What an https connection trusts when a CA bundle is set: Node's own roots, the
 * bundle's certificates and NODE_EXTRA_CA_CERTS' (giving `ca` replaces Node's
 * defaults, extra ones included, so they are added back).
 */
export function caBundle(network: Network): string[] {
  const setting = network.ca!;
  const extra = network.env.NODE_EXTRA_CA_CERTS?.trim();
  const key = `${setting.file}\0${extra ?? ''}`;
  const cached = bundles.get(key);
  if (cached) return cached;
  const { readFileSync } = process.getBuiltinModule('node:fs');
  const tls = process.getBuiltinModule('node:tls');
  const read = (file: string, from: string): string => {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const why = code === 'ENOENT' ? 'no existe' : code === 'EISDIR' ? 'es una carpeta' : code;
      throw new CaFileError(`no se pudo leer el certificado de ${from} (${file}): ${why}`);
    }
    if (!text.includes('-----BEGIN CERTIFICATE-----'))
      throw new CaFileError(
        `${from} (${file}) no tiene certificados PEM (-----BEGIN CERTIFICATE-----)`,
      );
    return text;
  };
  const ca = [...tls.rootCertificates, read(setting.file, setting.from)];
  if (extra) {
    try {
      ca.push(read(extra, 'NODE_EXTRA_CA_CERTS'));
    } catch {
      // Node already warned about it at start-up, and goes on without it too.
    }
  }
  bundles.set(key, ca);
  return ca;
}
