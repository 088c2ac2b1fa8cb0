// Forwarding a notification to the developer's app: the body byte for byte, the
// headers given, POST, no redirects followed (a 3xx is relayed as the answer), a
// timeout for the whole answer, many at once over kept-alive connections. Never
// throws: every failure becomes a result the listener can relay honestly.
import { performance } from 'node:perf_hooks';
import { Agent, ProxyAgent, type Dispatcher } from 'undici';
import {
  proxyAuthError,
  proxyAuthorization,
  proxyUnreachable,
  type Network,
  type ProxyRoute,
} from '../api/network.js';
import { caBundle } from '../api/transport.js';
import { describeUnreachable as describe } from './unreachable.js';

export const DEFAULT_FORWARD_TIMEOUT_MS = 10_000;
/** How much of the target's answer is kept (relayed to the sender, shown on failure). */
export const RESPONSE_KEEP_BYTES = 64 * 1024;

export interface ForwardResult {
  /** The target answered 2xx. */
  ok: boolean;
  /** The target's status; null when it could not be reached or did not answer in time. */
  status: number | null;
  latencyMs: number;
  /** Why there is no status. */
  error?: string;
  /** Start of the target's answer (up to RESPONSE_KEEP_BYTES), and whether that is all of it. */
  response?: Buffer;
  responseComplete?: boolean;
  contentType?: string;
  /** The answer's headers worth keeping (see keptResponseHeaders), when there was an answer. */
  responseHeaders?: Record<string, string>;
}

/**
 * An app's answer headers as the journal keeps them: everything but what can carry a
 * credential or a session (Set-Cookie, Authorization and the like), which has no
 * business in a file that `svc webhook ver` prints.
 */
export function keptResponseHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (
      value === undefined ||
      /^(set-cookie|cookie|authorization|proxy-authenticate|proxy-authorization|www-authenticate)$/i.test(
        name,
      )
    )
      continue;
    out[name.toLowerCase()] = (Array.isArray(value) ? value.join(', ') : value).slice(0, 1000);
  }
  return out;
}

export interface ForwarderOptions {
  timeoutMs?: number;
  /** Connections per target origin (more requests wait for one: no connection storm when the app slows down). */
  connections?: number;
  /** The proxy and CA bundle to go out with (network.ts); none: straight, Node's certificates. */
  network?: Network;
}

export class Forwarder {
  readonly timeoutMs: number;
  private readonly agent: Agent;
  private readonly network?: Network;
  private ca?: string[];
  /** A CA bundle that could not be read: every forward fails with it. */
  private readonly setupError?: Error;
  /** One agent per proxy in use, made on first use. */
  private readonly proxied = new Map<string, ProxyAgent>();
  private readonly connections: number;

  constructor(options: ForwarderOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_FORWARD_TIMEOUT_MS;
    this.connections = options.connections ?? 64;
    this.network = options.network;
    let ca: string[] | undefined;
    try {
      ca = this.network?.ca ? this.caBundle() : undefined;
    } catch (err) {
      this.setupError = err as Error;
    }
    this.agent = new Agent({
      connections: this.connections,
      keepAliveTimeout: 4_000,
      connectTimeout: Math.min(this.timeoutMs, 10_000),
      ...(ca ? { connect: { ca } } : {}),
    });
  }

  private caBundle(): string[] {
    this.ca ??= caBundle(this.network!);
    return this.ca;
  }

  /** The dispatcher for a target: its proxy's agent, or the direct one. */
  private dispatcherFor(target: URL): { dispatcher: Dispatcher; proxy?: ProxyRoute } {
    const proxy = this.network?.route(target);
    if (!proxy) return { dispatcher: this.agent };
    let agent = this.proxied.get(proxy.url.href);
    if (!agent) {
      const auth = proxyAuthorization(proxy.url)['proxy-authorization'];
      agent = new ProxyAgent({
        // The credentials go as a header, never inside an address undici could print.
        uri: `${proxy.url.protocol}//${proxy.url.host}`,
        ...(auth ? { token: auth } : {}),
        // Plain http goes to the proxy as a whole address, https through CONNECT.
        proxyTunnel: false,
        connections: this.connections,
        keepAliveTimeout: 4_000,
        connectTimeout: Math.min(this.timeoutMs, 10_000),
        ...(this.network?.ca ? { requestTls: { ca: this.caBundle() } } : {}),
      });
      this.proxied.set(proxy.url.href, agent);
    }
    return { dispatcher: agent, proxy };
  }

  /**
   * One POST through undici's dispatch, with callbacks rather than a response stream
   * and an AbortSignal: the listener forwards hundreds a second, and those were a
   * tenth of its CPU per event (#19).
   */
  forward(url: string, body: Uint8Array, headers: Record<string, string>): Promise<ForwardResult> {
    const started = performance.now();
    const latency = () => Math.round((performance.now() - started) * 100) / 100;
    const timeoutMs = this.timeoutMs;
    return new Promise<ForwardResult>((resolve) => {
      let controller: Dispatcher.DispatchController | undefined;
      let status = 0;
      let answerHeaders: Record<string, string | string[] | undefined> = {};
      const chunks: Buffer[] = [];
      let size = 0;
      let settled = false;
      const settle = (result: ForwardResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(result);
      };
      const answered = (complete: boolean): ForwardResult => {
        const ct = answerHeaders['content-type'];
        return {
          ok: status >= 200 && status < 300,
          status,
          latencyMs: latency(),
          response: Buffer.concat(chunks),
          responseComplete: complete,
          contentType: Array.isArray(ct) ? ct[0] : ct,
          responseHeaders: keptResponseHeaders(answerHeaders),
        };
      };
      let proxy: ProxyRoute | undefined;
      const failed = (err: unknown, timedOut = false) =>
        settle({
          ok: false,
          status: null,
          latencyMs: latency(),
          error:
            ownError(err) ??
            ((proxy && !timedOut && viaProxy(err, proxy)) ||
              describe(err, timedOut, timeoutMs) + trustHint(err)),
        });
      // The whole answer, connection included, within the timeout.
      const timer = setTimeout(() => {
        failed(undefined, true);
        controller?.abort(new Error('timeout'));
      }, timeoutMs);
      const handler: Dispatcher.DispatchHandler = {
        onRequestStart(c) {
          controller = c;
          if (settled) c.abort(new Error('timeout'));
        },
        onResponseStart(c, statusCode, h) {
          // A plain http request's 407 is the proxy's, not the app's.
          if (proxy && statusCode === 407) {
            failed(proxyAuthError(proxy));
            c.abort(new Error('proxy auth'));
            return;
          }
          status = statusCode;
          answerHeaders = h;
        },
        onResponseData(c, chunk) {
          if (settled) return;
          if (size + chunk.length > RESPONSE_KEEP_BYTES) {
            chunks.push(chunk.subarray(0, RESPONSE_KEEP_BYTES - size));
            settle(answered(false));
            c.abort(new Error('kept enough'));
            return;
          }
          chunks.push(chunk);
          size += chunk.length;
        },
        onResponseEnd() {
          settle(answered(true));
        },
        onResponseError(_c, err) {
          failed(err);
        },
      };
      try {
        const target = new URL(url);
        // The origin drops a target's user:password: sent as Basic auth, as curl does (unless -H gave one).
        const auth =
          target.username && !Object.keys(headers).some((k) => k.toLowerCase() === 'authorization')
            ? {
                authorization: `Basic ${Buffer.from(`${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`).toString('base64')}`,
              }
            : {};
        if (this.setupError) throw this.setupError;
        const chosen = this.dispatcherFor(target);
        proxy = chosen.proxy;
        chosen.dispatcher.dispatch(
          {
            origin: target.origin,
            path: `${target.pathname}${target.search}`,
            method: 'POST',
            headers: { ...headers, ...auth },
            body,
            headersTimeout: timeoutMs,
            bodyTimeout: timeoutMs,
          },
          handler,
        );
      } catch (err) {
        failed(err);
      }
    });
  }

  async close(): Promise<void> {
    await Promise.all(
      [this.agent, ...this.proxied.values()].map((a) => a.close().catch(() => undefined)),
    );
  }
}

/** After an unknown CA or a self-signed certificate: the settings that trust a company's CA. */
function trustHint(err: unknown): string {
  const e = err as { code?: string; cause?: { code?: string } } | undefined;
  const code = e?.code ?? e?.cause?.code ?? '';
  return /^(DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(_LOCALLY)?)$/.test(
    code,
  )
    ? ' (su CA se agrega con --cacert, SSL_CERT_FILE o NODE_EXTRA_CA_CERTS)'
    : '';
}

/** svc's own errors on the way out (a proxy setting it cannot use, a CA bundle it cannot read) say it in words already. */
function ownError(err: unknown): string | undefined {
  return err instanceof Error && (err.name === 'ProxyError' || err.name === 'CaFileError')
    ? err.message
    : undefined;
}

/** What a failure through a proxy says when it is the proxy's: unreachable, or a tunnel it refused. */
function viaProxy(err: unknown, proxy: ProxyRoute): string | undefined {
  const e = err as { code?: string; message?: string; cause?: { code?: string } } | undefined;
  // undici's words: "Proxy response (403) !== 200 when HTTP Tunneling" for a tunnel,
  // "Proxy Authentication Required (407)" for plain http.
  const refused = /^Proxy (?:response|Authentication Required) \((\d+)\)/.exec(e?.message ?? '');
  if (refused)
    return refused[1] === '407'
      ? proxyAuthError(proxy).message
      : `el proxy ${proxy.shown} no abrió el camino (HTTP ${refused[1]})`;
  // Every connection goes to the proxy: one that fails to open is the proxy's.
  const code = e?.code ?? e?.cause?.code;
  if (
    code &&
    /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|UND_ERR_CONNECT_TIMEOUT)$/.test(
      code,
    )
  )
    return proxyUnreachable(proxy, code).message;
  return undefined;
}
