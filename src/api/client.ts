// The client library of the service: one typed function per endpoint, each
// returning `{ http, data }` with `data` the JSON body exactly as the service sent it.
// GETs are retried on connection errors, 429 and 5xx (honouring Retry-After);
// POSTs are never retried, since a refund sent twice is money moved twice.
// A reply is read up to a cap (DEFAULT_MAX_REPLY_BYTES); addresses are shown with
// their userinfo hidden (address.ts).
import type * as z from 'zod/mini';
import { redactAddresses } from './address.js';
import {
  ApiError,
  NetworkError,
  refusedWrite,
  serviceError,
  type NetworkFailure,
} from './service-errors.js';
import {
  IncompleteListError,
  ItemList,
  linkNext,
  ListStream,
  PagedList,
  pagingOf,
  scanList,
  type Fold,
} from './list.js';
import { inexactOf, kindOfPath, type Inexact } from './exact.js';
import { ProxyError, proxyAuthError, type CaSetting, type Network } from './network.js';
import { CaFileError, openRequest, ReplyTooLargeError, send, sendWithFetch } from './transport.js';
import {
  API,
  pathOf,
  readSchema,
  RESOURCES,
  type CrearCobroInput,
  type DevolucionInput,
  type Endpoint,
  type ReadItem,
  type ReadReply,
} from './contract.js';
import {
  ErrorBody,
  shapeProblem,
  type EstadoCobro,
  type EstadoTransaccion,
  type Medio,
  type Open,
} from './schemas.js';
import { EXIT, SvcError } from '../errors.js';
import { isLoopbackHost } from '../domain/rules.js';
import { VERSION } from '../version.js';

/**
 * Most bytes of a reply body the client reads: 256 MiB, far above any real answer
 * (a list of 10,000 payment requests is about 7 MB) and below what a string can
 * hold (a reply over 512 MiB could not become one). A reply past it is not the
 * service's JSON: NetworkError('too_large').
 */
export const DEFAULT_MAX_REPLY_BYTES = 256 * 1024 * 1024;

/** Most pages of one list followed (five million items at 50 a page); past it the list is incomplete. */
export const MAX_LIST_PAGES = 100_000;

/**
 * A request that may change something (any method but GET), as the client sends it:
 * `sent` turns true once it may have reached the service and back to false when it
 * surely did not (connection refused, unknown host, TLS refused).
 */
export interface WriteRecord {
  method: string;
  path: string;
  sent: boolean;
}

export interface ApiResponse<T> {
  http: number;
  data: T;
}

export interface ClientOptions {
  baseUrl: string;
  apiKey?: string;
  /** Milliseconds for the whole answer of one attempt. Default 15 s. */
  timeoutMs?: number;
  /** Attempts for a GET, the first included. Default 3. */
  getAttempts?: number;
  /** Longest Retry-After (seconds) the client waits before giving up. Default 10. */
  maxRetryAfterSeconds?: number;
  /** Base of the exponential backoff in milliseconds. Default 250. */
  backoffMs?: number;
  userAgent?: string;
  /**
   * A fetch to send requests with (a proxy-aware one, say). Default: node:http and
   * node:https directly (see transport.ts), which start faster than Node's fetch.
   */
  fetch?: typeof fetch;
  /**
   * The proxy and company CA to use (network.ts; networkFromEnv() reads them as curl
   * does). Default: straight to the service, trusting Node's certificates. Not used
   * with `fetch`, which connects as it pleases.
   */
  network?: Network;
  /** Receives one line per request and response, Authorization redacted. */
  debug?: (line: string) => void;
  /** Called before each retry (for a spinner or a notice). */
  onRetry?: (info: { attempt: number; delayMs: number; reason: string }) => void;
  /**
   * Called once when an attempt has had no answer for `waitNoticeMs` (default 5 s),
   * so a person sees svc is waiting and for what, not a silent terminal.
   */
  onWait?: (info: { method: string; path: string; host: string; waitedMs: number }) => void;
  waitNoticeMs?: number;
  /** Most bytes of a reply body read. Default DEFAULT_MAX_REPLY_BYTES. */
  maxReplyBytes?: number;
  /**
   * Receives a record of each request that is not a GET before it is sent, and the
   * record is kept current (see WriteRecord): the CLI uses it to say "may or may
   * not have been done" when something unexpected happens after one was sent.
   */
  onWrite?: (write: WriteRecord) => void;
  /** Called before each further page of a list the service sends in pages. */
  onPage?: (info: { path: string; page: number; items: number }) => void;
}

export interface RawRequest {
  method: string;
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  /** When false, error statuses are returned instead of thrown (for `svc api`). */
  throwOnError?: boolean;
  /** Override the retry decision (default: GET only). */
  retry?: boolean;
  /** The whole address, when it is not the base URL + path + query (a list's next page). */
  url?: URL;
  /** A list: its 2xx body is read as it arrives (ListStream), whatever its length. */
  streamList?: boolean;
  /** A list read only until this says so (ListStream's `until`). */
  until?: (item: unknown) => boolean;
  /** Only the items this keeps are kept (ListStream's `keep`). */
  keep?: (item: unknown) => boolean;
  /** A new fold for each reading of a page (a retried page starts again from nothing). */
  fold?: () => Fold;
  /** Stops the request (a page read ahead that is not wanted after all); it is then not retried. */
  signal?: AbortSignal;
  /** Given a 2xx answer's headers as they arrive, before its body (transport.ts Exchange.onHead). */
  onHead?: (headers: Record<string, string | string[] | undefined>) => void;
}

/** Turns a 2xx body's text into data; throws NetworkError('not_json') when it is not JSON (retried for a GET). */
type Decode = (
  text: string,
  where: string,
  http: number,
  streamed?: ListStream,
  headers?: Record<string, string | string[] | undefined>,
) => unknown;

/**
 * How much of a list to read. `until` is called with each item as it arrives (parsed,
 * not yet checked: any shape); once it answers true the reading stops there, that
 * item included, and the list says `cut` (more may follow): for `--limit` without a
 * total, which needs only the first items. A reply not read as a stream is read whole.
 */
export interface ListRead {
  until?: (item: unknown) => boolean;
  /**
   * Called with each item as it arrives (parsed, not yet checked: any shape): only the
   * items it keeps are kept, and checked, so a list read for a few of its items (one
   * request's, for `caso`) costs memory for those, not for the whole list. A reply not
   * read as a stream (a fetch of the caller's) is kept whole.
   */
  keep?: (item: unknown) => boolean;
  /**
   * Totals in one pass: a new Fold for each reading of a page (a page read again after
   * a failure is folded again from nothing), given each item of the right shape as it
   * arrives; the items it answers false for are let go. An item of the wrong shape, or
   * one svc cannot take exactly, is never folded: it is kept, for the list's checks
   * (a wrong reply; a marked row, which every figure refuses). The list's `folds` are
   * those of the pages read; none when the reply was not read as a stream (then every
   * item is in the list, none folded). `page`: which page of the list (1 first), so a
   * reader can tell a page read again from the next one.
   */
  fold?: (page: number) => Fold;
}

// Filters on open fields: a value the service added is sent as typed.
export type CobroFilters = { estado?: Open<EstadoCobro>; q?: string };
export type TransaccionFilters = { medio?: Open<Medio>; estado?: Open<EstadoTransaccion> };

/** A list response as the body the service sent, items and all. */
async function whole<T>(
  res: Promise<ApiResponse<ItemList<T>>>,
): Promise<ApiResponse<Record<string, unknown> & { data: T[] }>> {
  const { http, data } = await res;
  return { http, data: data.toBody() };
}

export class InsecureBaseUrlError extends SvcError {
  override name = 'InsecureBaseUrlError';
  readonly exitCode = EXIT.usage;
  readonly code = 'usage';
}

/**
 * The key travels in a header: refuse plain http unless it stays on this machine.
 * Returns the base URL without a trailing slash.
 */
export function checkBaseUrl(baseUrl: string): string {
  let url: URL;
  // The address is echoed in the errors below: never its userinfo, even unparsed.
  const schemed = HAS_SCHEME.test(baseUrl);
  const hidden = schemed ? redactAddresses(baseUrl) : baseUrl.replace(/^[^/?#\\\s]*@/, '***@');
  const shown =
    hidden.length > 80 ? `${hidden.slice(0, 80)}… (${hidden.length} caracteres)` : hidden;
  // What a schemeless address lacks comes first; else why it is refused, if known.
  const invalid = (why?: string) =>
    new InsecureBaseUrlError(
      `dirección del servicio inválida: "${shown}"${(!schemed && missingScheme(baseUrl, shown)) || (why ? ` (${why})` : '')}`,
    );
  try {
    url = new URL(baseUrl);
  } catch {
    throw invalid();
  }
  // DNS limits: a longer name can only be a mistake (and getaddrinfo answers EINVAL).
  if (url.hostname.length > 253 || url.hostname.split('.').some((label) => label.length > 63)) {
    throw invalid('el nombre del host es demasiado largo');
  }
  if (url.protocol === 'https:') return baseUrl.replace(/\/+$/, '');
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return baseUrl.replace(/\/+$/, '');
  if (url.protocol === 'http:') {
    throw new InsecureBaseUrlError(
      `${url.origin} usa http sin cifrar: la clave viajaría en claro; usá https (http solo se acepta hacia 127.0.0.1/localhost)`,
    );
  }
  throw invalid('se espera https://…');
}

/** An address that starts with its scheme (`https://`, `ftp://`…). */
const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * For an address typed without its scheme (`localhost:4010`, `api.example.com`):
 * what it lacks, as ` (¿falta …? ej. …)`. http:// for this machine (the sandbox
 * speaks http), https:// for any other; empty when it is no address even with one.
 */
function missingScheme(text: string, shown: string): string {
  let host: string;
  try {
    host = new URL(`http://${text}`).hostname;
  } catch {
    return '';
  }
  const scheme = isLoopbackHost(host) ? 'http://' : 'https://';
  return ` (¿falta ${scheme}? ej. ${scheme}${shown})`;
}

export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/** Retry-After in seconds (delta or HTTP date), or undefined. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class Client {
  readonly baseUrl: string;
  /** The base URL as shown to people: its userinfo (`user:pass@`) hidden. */
  readonly address: string;
  private readonly opts: Required<
    Pick<
      ClientOptions,
      | 'timeoutMs'
      | 'getAttempts'
      | 'maxRetryAfterSeconds'
      | 'backoffMs'
      | 'userAgent'
      | 'maxReplyBytes'
    >
  > &
    ClientOptions;

  constructor(options: ClientOptions) {
    this.baseUrl = checkBaseUrl(options.baseUrl);
    this.address = redactAddresses(this.baseUrl);
    this.opts = {
      timeoutMs: 15_000,
      maxReplyBytes: DEFAULT_MAX_REPLY_BYTES,
      getAttempts: 3,
      maxRetryAfterSeconds: 10,
      backoffMs: 250,
      userAgent: `svc/${VERSION} (node ${process.versions.node})`,
      // An option passed as undefined keeps its default (a NaN timeout aborts at once).
      ...(Object.fromEntries(
        Object.entries(options).filter(([, v]) => v !== undefined),
      ) as ClientOptions),
    };
  }

  // --- the thirteen endpoints (contract.ts: method, path and reply of each) ------

  salud() {
    return this.endpoint(API.salud);
  }
  cuenta() {
    return this.endpoint(API.cuenta);
  }
  cargos() {
    return whole(this.iterarCargos());
  }
  crearCobro(body: CrearCobroInput) {
    return this.endpoint(API.crearCobro, { body });
  }
  listarCobros(filters: CobroFilters = {}) {
    return whole(this.iterarCobros(filters));
  }
  verCobro(id: number) {
    return this.endpoint(API.verCobro, { id }).then(sameId('id', id, 'GET /v1/cobros'));
  }
  syncCobro(id: number) {
    return this.endpoint(API.syncCobro, { id, body: {} }).then(
      sameId('id', id, 'POST /v1/cobros', '/sync'),
    );
  }
  devolver(id: number, body: DevolucionInput) {
    return this.endpoint(API.devolver, { id, body }).then(
      sameId('cobro_id', id, 'POST /v1/cobros', '/devoluciones'),
    );
  }
  listarTransacciones(filters: TransaccionFilters = {}) {
    return whole(this.iterarTransacciones(filters));
  }
  verTransaccion(id: number) {
    return this.endpoint(API.verTransaccion, { id }).then(
      sameId('id', id, 'GET /v1/transacciones'),
    );
  }
  listarDevoluciones() {
    return whole(this.iterarDevoluciones());
  }
  verDevolucion(id: number) {
    return this.endpoint(API.verDevolucion, { id }).then(sameId('id', id, 'GET /v1/devoluciones'));
  }
  listarLiquidaciones() {
    return whole(this.iterarLiquidaciones());
  }

  // The same lists item by item (an ItemList parses one item per read): for long
  // lists printed as they are read, as `svc cobro listar` does.
  iterarCargos() {
    return this.list(API.cargos);
  }
  iterarCobros(filters: CobroFilters = {}, read: ListRead = {}) {
    return this.list(API.listarCobros, filters, read);
  }
  iterarTransacciones(filters: TransaccionFilters = {}, read: ListRead = {}) {
    return this.list(API.listarTransacciones, filters, read);
  }
  iterarDevoluciones(read: ListRead = {}) {
    return this.list(API.listarDevoluciones, undefined, read);
  }
  iterarLiquidaciones(read: ListRead = {}) {
    return this.list(API.listarLiquidaciones, undefined, read);
  }

  /** An endpoint of the table that answers one object, its reply read openly. */
  private endpoint<E extends Endpoint>(
    e: E,
    extra: { id?: number; body?: unknown } = {},
  ): Promise<ApiResponse<ReadReply<E>>> {
    return this.call(
      e.method,
      pathOf(e, extra.id),
      readSchema(e),
      extra.body === undefined ? {} : { body: extra.body },
    );
  }

  /** A list endpoint of the table, its items read openly one by one. */
  private list<E extends Endpoint>(
    e: E,
    query?: Record<string, string | undefined>,
    read: ListRead = {},
  ): Promise<ApiResponse<ItemList<z.infer<ReadItem<E>>>>> {
    return this.callList(pathOf(e), RESOURCES[e.reply.resource].read as ReadItem<E>, {
      ...(query ? { query } : {}),
      ...(read.until ? { until: read.until } : {}),
      ...(read.keep ? { keep: read.keep } : {}),
      ...(read.fold ? { fold: read.fold } : {}),
    }) as Promise<ApiResponse<ItemList<z.infer<ReadItem<E>>>>>;
  }

  // --- machinery ---------------------------------------------------------------

  /** Validated call: the body must match the schema, or it is a NetworkError('bad_shape'). */
  async call<S extends z.ZodMiniType>(
    method: 'GET' | 'POST',
    path: string,
    schema: S,
    extra: { body?: unknown; query?: Record<string, string | undefined> } = {},
  ): Promise<ApiResponse<z.infer<S>>> {
    const res = await this.request({ method, path, ...extra });
    try {
      checkShape(schema, res.data, `${method} ${path}`, res.http);
    } catch (err) {
      throw unreadable(err, `${method} ${path}`, res.http);
    }
    // The body exactly as sent (zod's output would drop unknown fields and reorder keys).
    return { http: res.http, data: res.data as z.infer<S> };
  }

  /**
   * A list endpoint: `{ data: [...] }` kept as text, every item checked on its own
   * as it is found (see ItemList), so a list of 10,000 is never held as objects
   * all at once, neither here nor by the validator.
   */
  async callList<S extends z.ZodMiniType>(
    path: string,
    item: S,
    extra: {
      query?: Record<string, string | undefined>;
      /** Read the list only until this is true of an item (that item included): see ListRead. */
      until?: (item: unknown) => boolean;
      /** Keep only the items this is true of: see ListRead. */
      keep?: (item: unknown) => boolean;
      /** Fold the items as they arrive: see ListRead. */
      fold?: (page: number) => Fold;
    } = {},
  ): Promise<ApiResponse<ItemList<z.infer<S>>>> {
    // Only items of the right shape are folded: any other is kept for the checks.
    const makeFold = extra.fold;
    if (makeFold)
      extra = {
        ...extra,
        fold: (page: number) => {
          const f = makeFold(page);
          const shaped: Fold & { inner: Fold } = {
            add: (x: unknown) => (shapeProblem(item, x) === null ? f.add(x) : true),
            inner: f,
          };
          return shaped;
        },
      };
    // Page after page while the service says the list goes on (list.ts pagingOf), on
    // this service's own origin only (the key goes with each request); a sign of more
    // that svc cannot follow is IncompleteListError, never a short list.
    const origin = new URL(this.baseUrl).origin;
    const pages: ItemList<z.infer<S>>[] = [];
    const seen = new Set<string>();
    let items = 0;
    let total: { value: number; sign: string } | undefined;
    let http = 200;
    const incomplete = (sign: string, why: string) =>
      new IncompleteListError(path, sign, why, items);
    /** The address of the page after `from` (page `page`), or why svc does not ask for it. */
    const follow = (next: { href: string }, from: URL, page: number): URL | string => {
      let url: URL;
      try {
        url = new URL(next.href, from);
      } catch {
        return `"${next.href.slice(0, 80)}" no es una dirección`;
      }
      if (url.origin !== origin)
        return `la página siguiente está en otro origen (${redactAddresses(url.origin)}), adonde svc no manda la clave`;
      if (seen.has(url.href) || url.href === from.href)
        return 'la página siguiente repite una ya leída';
      if (page >= MAX_LIST_PAGES) return `más de ${MAX_LIST_PAGES} páginas`;
      return url;
    };
    // The next page is asked for ahead of the loop below, while this one is still read:
    // as soon as its head says where the next is (Link rel="next", which is what the
    // loop follows when there is one), or else once its body is whole, while its items
    // are checked. A page then costs the service's time or svc's, the larger, not their
    // sum. Only where the loop would ask for it too (never past what a reader with
    // `until` asked for), the same address by the same rules, one page ahead at most;
    // given up (aborted, never retried) when the loop stops after all: an item of the
    // wrong shape, a page that is no list, a page read again that points elsewhere.
    interface Reading {
      req: RawRequest;
      res: ReturnType<Client['request']>;
      from: URL;
      page: number;
      wrong: () => NetworkError | undefined;
      /** The next page its head named (Link rel="next"), once it arrived. */
      headNext?: string;
    }
    let ahead: { url: URL; reading: Reading; stop: AbortController } | undefined;
    /** Asks for the page after `me` at `next`, when `me` is the page the loop reads. */
    const askAhead = (me: Reading, next: { href: string } | undefined) => {
      if (me !== current || next === undefined) return;
      const url = follow(next, me.from, me.page);
      if (typeof url === 'string' || ahead?.url.href === url.href) return;
      ahead?.stop.abort();
      const stop = new AbortController();
      ahead = { url, reading: reading(url, me.page + 1, stop.signal), stop };
    };
    /**
     * One page's request (page `page`, at `url`; the first is the path and query), read
     * as it arrives. The first item of the wrong shape is kept rather than thrown
     * (`wrong`): a body of the wrong shape is an answer (never retried), while one that
     * is not JSON is retried.
     */
    const reading = (url: URL | undefined, page: number, signal?: AbortSignal): Reading => {
      let wrong: NetworkError | undefined;
      const decode: Decode = (text, where, http, streamed, headers) => {
        wrong = undefined;
        // An item whose only fault is a value svc cannot take exactly is kept, marked
        // (api/exact.ts): the rest of the list is read; any other fault is the reply's.
        const check = (value: unknown, i: number): Inexact | undefined => {
          if (wrong) return undefined;
          const err = shapeError(item, value, where, http, `data.${i}`);
          if (!err) return undefined;
          const why = inexactOf(item, value);
          if (why) return { why, kind: kindOfPath(path) };
          wrong = err;
          return undefined;
        };
        const envelope = streamed?.envelopeOf();
        if (envelope && !streamed!.done) askAhead(me, pagingOf(headers?.link, envelope).next);
        const list = streamed ? streamed.result(check) : scanList(text, check);
        if (list) return list;
        // A body whose items had started and then was no list (its text was not kept).
        if (streamed && text === '')
          throw new NetworkError(
            'not_json',
            `${where}: HTTP ${http} respondió una lista que no es JSON válido, no el JSON del servicio`,
            true,
            http,
          );
        return parseJson(text, where, http);
      };
      // A reader with `until` may have enough by this page's end: only then is more known.
      const onHead = extra.until
        ? undefined
        : (headers: Record<string, string | string[] | undefined>) => {
            const [href] = linkNext(headers.link);
            if (href === undefined) return;
            me.headNext = href;
            askAhead(me, { href });
          };
      // Each reading of this page folds into a new fold that knows its page.
      const makePageFold = extra.fold;
      const fold = makePageFold && (() => makePageFold(page));
      const req: RawRequest = url
        ? {
            method: 'GET',
            path: url.pathname + url.search,
            url,
            streamList: true,
            until: extra.until,
            keep: extra.keep,
            fold,
            ...(signal ? { signal } : {}),
            ...(onHead ? { onHead } : {}),
          }
        : { method: 'GET', path, ...extra, fold, streamList: true, ...(onHead ? { onHead } : {}) };
      // Where the page was asked for, its query included: a next page is read from it.
      const me: Reading = { req, res: undefined!, from: this.urlOf(req), page, wrong: () => wrong };
      me.res = this.request(req, decode);
      // A page read ahead and given up is never awaited: its failure is no one's.
      me.res.catch(() => {});
      return me;
    };
    let current = reading(undefined, 1);
    try {
      for (let page = 1; ; page++) {
        const { req } = current;
        const res = await current.res;
        if (!(res.data instanceof ItemList))
          throw badShape(`GET ${req.path}`, res.http, 'data: se esperaba una lista');
        const wrong = current.wrong();
        if (wrong) throw wrong;
        http = res.http;
        pages.push(res.data as ItemList<z.infer<S>>);
        // Every item the page held, kept or not: a declared total counts them all.
        items += res.data.seen;
        // Stopped where the reader had enough: no next page either.
        if (res.data.cut) break;
        const paging = pagingOf(res.headers.link, res.data.envelope);
        // The reader had enough by this page's end: more pages are more than it asked for.
        if (res.data.satisfied && (paging.next || paging.signs.length > 0)) {
          res.data.cut = true;
          break;
        }
        if (paging.total) total = paging.total;
        if (!paging.next) {
          if (paging.signs.length > 0)
            throw incomplete(
              paging.signs[0]!,
              'el servicio dice que hay más y no da la dirección de la página siguiente',
            );
          if (total && total.value > items)
            throw incomplete(total.sign, `llegaron ${items} elementos`);
          break;
        }
        const next = follow(paging.next, current.from, page);
        if (typeof next === 'string') throw incomplete(paging.next.sign, next);
        seen.add(next.href);
        this.opts.onPage?.({ path, page: page + 1, items });
        if (ahead?.url.href === next.href) current = ahead.reading;
        else {
          ahead?.stop.abort();
          current = reading(next, page + 1);
        }
        ahead = undefined;
        // A page asked ahead whose head came while it waited its turn: its next, now.
        if (current.headNext !== undefined) askAhead(current, { href: current.headNext });
      }
    } finally {
      ahead?.stop.abort();
    }
    const data = pages.length === 1 ? pages[0]! : new PagedList(pages);
    data.cut = pages.at(-1)?.cut === true;
    // The reader's own folds, as it made them.
    data.folds = data.folds.map((f) => (f as Fold & { inner: Fold }).inner);
    return { http, data };
  }

  /** Any request; returns the parsed JSON body as sent. Retries GETs only. */
  async request(
    req: RawRequest,
    decode: Decode = parseJson,
  ): Promise<ApiResponse<unknown> & { headers: Record<string, string | string[] | undefined> }> {
    const method = req.method.toUpperCase();
    const retry = req.retry ?? method === 'GET';
    const attempts = retry ? Math.max(1, this.opts.getAttempts) : 1;
    let write: WriteRecord | undefined;
    if (method !== 'GET') {
      write = { method, path: req.path, sent: false };
      this.opts.onWrite?.(write);
    }
    let lastError: unknown;
    const started = Date.now();
    for (let attempt = 1; attempt <= attempts; attempt++) {
      try {
        const res = await this.once(method, req, write);
        if (isRetryableStatus(res.http) && attempt < attempts) {
          const retryAfter = parseRetryAfter(headerValue(res.headers['retry-after']));
          if (retryAfter === undefined || retryAfter <= this.opts.maxRetryAfterSeconds) {
            const delayMs = retryAfter !== undefined ? retryAfter * 1000 : this.backoff(attempt);
            this.opts.onRetry?.({ attempt, delayMs, reason: `HTTP ${res.http}` });
            await sleep(delayMs);
            lastError = undefined;
            continue;
          }
        }
        try {
          return this.interpret(method, req, res, decode);
        } catch (err) {
          throw unreadable(err, `${method} ${req.path}`, res.http);
        }
      } catch (err) {
        if (write && err instanceof NetworkError && !err.sent) write.sent = false;
        if (!(err instanceof NetworkError) || !retry || req.signal?.aborted) throw err;
        if (attempt >= attempts) throw this.waited(err, method, req.path, attempt, started);
        // A typo in the host, https that does not work with it, or a reply too large
        // to read does not heal by waiting.
        if (
          err.failure === 'unknown_host' ||
          err.failure === 'tls' ||
          err.failure === 'too_large' ||
          err.failure === 'proxy'
        )
          throw err;
        lastError = err;
        const delayMs = this.backoff(attempt);
        this.opts.onRetry?.({ attempt, delayMs, reason: err.message });
        await sleep(delayMs);
      }
    }
    throw lastError ?? new NetworkError('other', 'sin respuesta del servicio', true);
  }

  /**
   * A GET whose answer comes over time (the sandbox's server-sent events): resolves
   * once the answer's head arrived (from then on the server is sending), with its text
   * as it comes, until the server ends it or `signal` aborts (then it just stops). Not
   * retried; an answer that is not 2xx is read whole and thrown as request() does.
   */
  async stream(path: string, signal: AbortSignal): Promise<AsyncIterable<string>> {
    const url = new URL(this.baseUrl + path);
    const headers: Record<string, string> = {
      'user-agent': this.opts.userAgent,
      accept: 'text/event-stream',
    };
    if (this.opts.apiKey) headers.authorization = `Bearer ${this.opts.apiKey}`;
    this.debugLine(`--> GET ${url.href} (en vivo)`);
    let body: AsyncIterable<Uint8Array>;
    let status: number;
    let answerHeaders: Record<string, string | string[] | undefined>;
    try {
      if (this.opts.fetch) {
        const res = await this.opts.fetch(url, { headers, signal, redirect: 'manual' });
        [status, answerHeaders, body] = [
          res.status,
          Object.fromEntries(res.headers),
          (res.body ?? []) as AsyncIterable<Uint8Array>,
        ];
      } else {
        const network = this.opts.network;
        const res = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
          const { req, proxy } = openRequest(url, { headers, signal }, network);
          req.once('error', reject);
          req.once('response', (res) => {
            if (proxy && res.statusCode === 407) {
              res.resume();
              reject(proxyAuthError(proxy));
            } else resolve(res);
          });
          req.end();
        });
        [status, answerHeaders, body] = [res.statusCode ?? 0, res.headers, res];
      }
    } catch (err) {
      if (signal.aborted) return nothing();
      throw toNetworkError(
        err,
        'GET',
        url,
        false,
        this.opts.timeoutMs,
        this.via(url),
        this.opts.network?.ca,
      );
    }
    this.debugLine(`<-- HTTP ${status}`);
    const decoder = new TextDecoder();
    if (status < 200 || status >= 300) {
      let text = '';
      for await (const chunk of body) text += decoder.decode(chunk, { stream: true });
      this.interpret(
        'GET',
        { method: 'GET', path },
        { http: status, text, headers: answerHeaders },
        parseJson,
      );
      return nothing();
    }
    const timeoutMs = this.opts.timeoutMs;
    const via = this.via(url);
    const ca = this.opts.network?.ca;
    return (async function* () {
      try {
        for await (const chunk of body) yield decoder.decode(chunk, { stream: true });
      } catch (err) {
        if (signal.aborted) return;
        throw toNetworkError(err, 'GET', url, false, timeoutMs, via, ca);
      }
    })();
  }

  /** A timeout after retries says how long svc really waited, not one attempt's limit. */
  private waited(
    err: NetworkError,
    method: string,
    path: string,
    attempts: number,
    started: number,
  ): NetworkError {
    if (err.failure !== 'timeout' || attempts < 2) return err;
    const secs = ((Date.now() - started) / 1000).toFixed(1);
    return new NetworkError(
      'timeout',
      `${method} ${path}: sin respuesta de ${new URL(this.baseUrl).host} en ${secs} s (${attempts} intentos de ${this.opts.timeoutMs / 1000} s)`,
      err.sent,
      err.http,
    );
  }

  private backoff(attempt: number): number {
    const base = this.opts.backoffMs * 2 ** (attempt - 1);
    return Math.round(base / 2 + Math.random() * (base / 2));
  }

  /** Where a request goes: its own address (a list's next page), or the base URL, path and query. */
  private urlOf(req: RawRequest): URL {
    if (req.url) return req.url;
    const url = new URL(this.baseUrl + req.path);
    for (const [k, v] of Object.entries(req.query ?? {}))
      if (v !== undefined && v !== '') url.searchParams.set(k, v);
    return url;
  }

  private async once(method: string, req: RawRequest, write?: WriteRecord) {
    const url = this.urlOf(req);
    const headers: Record<string, string> = {
      'user-agent': this.opts.userAgent,
      accept: 'application/json',
      // Bodies as they are; one compressed anyway is decoded (transport.ts).
      'accept-encoding': 'identity',
    };
    if (this.opts.apiKey) headers.authorization = `Bearer ${this.opts.apiKey}`;
    let payload: string | undefined;
    if (req.body !== undefined) {
      payload = typeof req.body === 'string' ? req.body : JSON.stringify(req.body);
      headers['content-type'] = 'application/json';
    }
    this.debugLine(`--> ${method} ${url.href}`);
    const via = this.via(url);
    if (via) this.debugLine(`--> por el proxy ${via} (de ${this.opts.network!.route(url)!.from})`);
    for (const [k, v] of Object.entries(headers))
      this.debugLine(`--> ${k}: ${k === 'authorization' ? 'Bearer [redactado]' : v}`);
    if (payload !== undefined) this.debugLine(`--> ${truncate(payload)}`);

    const controller = new AbortController();
    const stop = () => controller.abort();
    if (req.signal?.aborted) stop();
    req.signal?.addEventListener('abort', stop, { once: true });
    let timer = setTimeout(() => controller.abort(), this.opts.timeoutMs);
    const waitMs = this.opts.waitNoticeMs ?? 5000;
    const onWait = this.opts.onWait;
    const notice =
      onWait && waitMs < this.opts.timeoutMs
        ? setTimeout(
            () => onWait({ method, path: url.pathname, host: url.host, waitedMs: waitMs }),
            waitMs,
          )
        : undefined;
    try {
      // A list has no cap on its length; each of its items has the reply's.
      const streamed =
        req.streamList && !this.opts.fetch
          ? new ListStream(this.opts.maxReplyBytes, {
              until: req.until,
              keep: req.keep,
              fold: req.fold?.(),
            })
          : undefined;
      // A list's wait is for each piece of it, not for all of it: a year of requests
      // takes longer than the timeout to arrive, and is answered all along.
      const sink = streamed && {
        push: (chunk: Uint8Array) => {
          clearTimeout(notice);
          clearTimeout(timer);
          timer = setTimeout(() => controller.abort(), this.opts.timeoutMs);
          return streamed.push(chunk);
        },
        keepsText: () => streamed.keepsText(),
        get tooLarge() {
          return streamed.tooLarge;
        },
        get enough() {
          return streamed.enough;
        },
      };
      const exchange = {
        sink,
        method,
        headers,
        body: payload,
        signal: controller.signal,
        maxBytes: this.opts.maxReplyBytes,
        network: this.opts.network,
        onDispatch: () => {
          if (write) write.sent = true;
        },
        ...(req.onHead ? { onHead: req.onHead } : {}),
      };
      const res = this.opts.fetch
        ? await sendWithFetch(this.opts.fetch, url, exchange)
        : await send(url, exchange);
      this.debugLine(`<-- HTTP ${res.status}`);
      this.debugLine(`<-- ${truncate(res.text)}`);
      return {
        http: res.status,
        text: res.text,
        headers: res.headers,
        streamed,
        overflow: res.overflow === true,
      };
    } catch (err) {
      throw toNetworkError(
        err,
        method,
        url,
        controller.signal.aborted,
        this.opts.timeoutMs,
        via,
        this.opts.network?.ca,
      );
    } finally {
      clearTimeout(timer);
      clearTimeout(notice);
      req.signal?.removeEventListener('abort', stop);
    }
  }

  private interpret(
    method: string,
    req: RawRequest,
    res: {
      http: number;
      text: string;
      headers: Record<string, string | string[] | undefined>;
      streamed?: ListStream;
      overflow?: boolean;
    },
    decode: Decode,
  ) {
    const where = `${method} ${req.path}`;
    if (!res.overflow && res.text.trim() === '') {
      throw new NetworkError(
        'empty_body',
        `${where}: HTTP ${res.http} con el cuerpo vacío; no es una respuesta del servicio`,
        true,
        res.http,
      );
    }
    const success = res.http >= 200 && res.http < 300;
    if (success)
      return {
        http: res.http,
        data: decode(res.text, where, res.http, res.streamed, res.headers),
        headers: res.headers,
      };
    const body = parseJson(res.text, where, res.http);
    const err = ErrorBody.safeParse(body);
    if (req.throwOnError === false) return { http: res.http, data: body, headers: res.headers };
    if (!err.success) {
      throw new NetworkError(
        'bad_shape',
        `${where}: HTTP ${res.http} con un cuerpo de error que no es {error, message}`,
        true,
        res.http,
      );
    }
    // To a write (the sandbox's own control plane aside), only a refusal the seed names
    // says it was not done; anything else may come after the service wrote.
    if (
      method !== 'GET' &&
      !req.path.startsWith('/_sandbox/') &&
      !refusedWrite(res.http, err.data.error)
    ) {
      throw new NetworkError(
        'http_error',
        `${where}: HTTP ${res.http} ${printableCode(err.data.error)}, una respuesta que no dice si se hizo`,
        true,
        res.http,
      );
    }
    throw serviceError(res.http, err.data.error, err.data.message, body, waitHint(res));
  }

  /** The proxy a request to `url` goes through, as shown; undefined when straight (or with a fetch of the caller's). */
  private via(url: URL): string | undefined {
    if (this.opts.fetch || !this.opts.network) return undefined;
    try {
      return this.opts.network.route(url)?.shown;
    } catch {
      return undefined;
    }
  }

  private debugLine(line: string) {
    if (!this.opts.debug) return;
    const shown = redactAddresses(line);
    this.opts.debug(this.opts.apiKey ? shown.split(this.opts.apiKey).join('[redactado]') : shown);
  }
}

export function createClient(options: ClientOptions): Client {
  return new Client(options);
}

function parseJson(text: string, where: string, http: number): unknown {
  try {
    return JSON.parse(text);
  } catch {
    const kind = /^\s*</.test(text)
      ? 'una página HTML (¿un proxy o balanceador?)'
      : 'algo que no es JSON';
    throw new NetworkError(
      'not_json',
      `${where}: HTTP ${http} respondió ${kind}, no el JSON del servicio`,
      true,
      http,
      text,
    );
  }
}

/**
 * An error met while reading a reply that arrived: the client's own ones pass, anything
 * else (a bug, a reply that breaks a parser) becomes a NetworkError that says the reply
 * could not be read and that the request was sent, so a caller never mistakes it for
 * "nothing happened".
 */
function unreadable(err: unknown, where: string, http: number): unknown {
  if (err instanceof NetworkError || err instanceof ApiError) return err;
  const why = err instanceof Error ? err.message : String(err);
  return new NetworkError(
    'other',
    `${where}: HTTP ${http}: no se pudo leer la respuesta (${truncate(why, 120)})`,
    true,
    http,
  );
}

function badShape(call: string, http: number, where: string): NetworkError {
  return new NetworkError(
    'bad_shape',
    `la respuesta de ${call} (HTTP ${http}) no tiene la forma esperada del servicio (${where})`,
    true,
    http,
  );
}

/** Throws bad_shape naming the first field that does not match (`at` prefixes its path). */
function checkShape(
  schema: z.ZodMiniType,
  value: unknown,
  call: string,
  http: number,
  at = '',
): void {
  const err = shapeError(schema, value, call, http, at);
  if (err) throw err;
}

function shapeError(
  schema: z.ZodMiniType,
  value: unknown,
  call: string,
  http: number,
  at = '',
): NetworkError | undefined {
  const problem = shapeProblem(schema, value, '(raíz)', at);
  return problem === null ? undefined : badShape(call, http, problem);
}

/** A service's error code inside svc's own sentence: printable, bounded. */
function printableCode(code: string): string {
  const flat = code.replace(/[^\x20-\x7e]/g, '?');
  return flat.length > 60 ? `${flat.slice(0, 60)}…` : flat;
}

/**
 * A reply about the record asked for, or a NetworkError: a body whose `field` is not
 * the id in the path is some other record's (a cache, a proxy, a bug), and nothing
 * svc shows or decides may rest on it. After a write it leaves the outcome unknown.
 */
function sameId<R extends ApiResponse<{ data: Record<string, unknown> }>>(
  field: string,
  id: number,
  path: string,
  tail = '',
): (res: R) => R {
  return (res) => {
    const got = res.data.data[field];
    if (got !== id)
      throw new NetworkError(
        'bad_shape',
        `la respuesta de ${path}/${id}${tail} (HTTP ${res.http}) tiene ${field} ${typeof got === 'number' ? got : JSON.stringify(got)?.slice(0, 40)}, no ${id}: no es la del registro pedido`,
        true,
        res.http,
      );
    return res;
  };
}

/** What a 429 or 503 with Retry-After says about when to try again. */
function waitHint(res: {
  http: number;
  headers: Record<string, string | string[] | undefined>;
}): string | undefined {
  if (res.http !== 429 && res.http !== 503) return undefined;
  const secs = parseRetryAfter(headerValue(res.headers['retry-after']));
  if (secs === undefined) return undefined;
  const at = new Date(Date.now() + secs * 1000).toTimeString().slice(0, 8);
  return `el servicio pide esperar ${secs} s (Retry-After): probá de nuevo a partir de las ${at}`;
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

function truncate(text: string, max = 2000): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} caracteres)` : text;
}

/** A byte count as people read it: MiB when whole, else bytes. */
function bytes(n: number): string {
  const MiB = 1024 * 1024;
  return n >= MiB && n % MiB === 0 ? `${n / MiB} MiB` : `${n} bytes`;
}

async function* nothing(): AsyncGenerator<string> {}

function toNetworkError(
  err: unknown,
  method: string,
  url: URL,
  aborted: boolean,
  timeoutMs: number,
  /** The proxy the request went through, as shown. */
  via?: string,
  /** The CA bundle trusted besides Node's, when one is set. */
  ca?: CaSetting,
): NetworkError {
  const e = err as {
    code?: string;
    cause?: { code?: string; errors?: { code?: string }[]; message?: string };
    message?: string;
  };
  const code = e?.cause?.code ?? e?.cause?.errors?.[0]?.code ?? e?.code ?? '';
  const target = `${url.host}`;
  let failure: NetworkFailure = 'other';
  // fetch says only "fetch failed"; the reason (e.g. "bad port") is in its cause.
  const cause = e?.cause?.message ? ` (${truncate(e.cause.message, 120)})` : '';
  let message = `${method} ${url.pathname}: ${e?.message ?? String(err)}${cause}`;
  let sent = true;
  const byProxy = via ? ` (por el proxy ${via})` : '';
  if (err instanceof ProxyError) {
    // Nothing reached the service: the proxy was not there, or did not let it through.
    return new NetworkError('proxy', err.message, false, err.status);
  } else if (err instanceof CaFileError) {
    return new NetworkError('tls', err.message, false);
  } else if (err instanceof ReplyTooLargeError) {
    failure = 'too_large';
    const size = err.declared !== undefined ? ` (anuncia ${bytes(err.declared)})` : '';
    message = `${method} ${url.pathname}: la respuesta de ${target} supera ${bytes(err.limit)}${size}, el máximo que svc lee; no es una respuesta del servicio`;
  } else if (aborted || /TIMEOUT/.test(code)) {
    failure = 'timeout';
    message = `${method} ${url.pathname}: sin respuesta de ${target} en ${timeoutMs / 1000} s${byProxy}`;
    sent = code !== 'UND_ERR_CONNECT_TIMEOUT';
  } else if (code === 'ECONNREFUSED') {
    failure = 'connection_refused';
    message = `no se pudo conectar con ${target} (conexión rechazada)`;
    sent = false;
  } else if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    failure = 'unknown_host';
    message = `no se encontró el host ${url.hostname}; revisá la dirección del servicio`;
    sent = false;
  } else if (
    code === 'ECONNRESET' ||
    code === 'UND_ERR_SOCKET' ||
    code === 'EPIPE' ||
    code === 'UND_ERR_CLOSED'
  ) {
    failure = 'connection_reset';
    message = `${method} ${url.pathname}: ${target} cortó la conexión antes de responder${byProxy}`;
  } else if (/^(EPROTO|ERR_SSL_|ERR_TLS_|CERT_|DEPTH_ZERO_|SELF_SIGNED_|UNABLE_TO_)/.test(code)) {
    // The TLS handshake failed: nothing was sent. OpenSSL's own text is not for people.
    const refused = /wrong version number|packet length too long|http request/i.test(
      e?.message ?? '',
    )
      ? { why: 'no responde https: ¿la dirección es http://?' }
      : certificateProblem(code, url.hostname, ca);
    message = `${method} ${url.pathname}: no se pudo abrir https con ${target}${byProxy}: ${refused.why}`;
    return new NetworkError('tls', message, false, undefined, undefined, refused.fix);
  }
  return new NetworkError(failure, message, sent);
}

/**
 * A certificate the connection refused, in words, and the way forward: a company
 * that inspects TLS signs every site with its own CA, which svc trusts once told
 * where it is (--cacert, SSL_CERT_FILE, NODE_EXTRA_CA_CERTS or the profile's ca_file).
 */
function certificateProblem(
  code: string,
  host: string,
  ca: CaSetting | undefined,
): { why: string; fix?: string } {
  const trust =
    'si la red de tu empresa inspecciona TLS, pedí el certificado de su CA (PEM) y pasalo con --cacert ARCHIVO, SSL_CERT_FILE=ARCHIVO o NODE_EXTRA_CA_CERTS=ARCHIVO';
  const already = ca ? ` (svc ya confía en ${ca.file}, de ${ca.from}: esa CA no lo firmó)` : '';
  switch (code) {
    case 'CERT_HAS_EXPIRED':
      return {
        why: `el certificado de ${host} está vencido`,
        fix: 'revisá la fecha y hora de esta máquina; si están bien, el certificado es del servicio (o del proxy de tu empresa) y tienen que renovarlo',
      };
    case 'CERT_NOT_YET_VALID':
      return {
        why: `el certificado de ${host} todavía no es válido`,
        fix: 'revisá la fecha y hora de esta máquina',
      };
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return {
        why: `el certificado no es de ${host} (es de otro nombre)`,
        fix: 'revisá la dirección del servicio (--base-url, SVC_BASE_URL o el perfil): tiene que ser el nombre del certificado',
      };
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
      return { why: `el certificado de ${host} es autofirmado${already}`, fix: trust };
    case 'SELF_SIGNED_CERT_IN_CHAIN':
      return {
        why: `el certificado de ${host} lo firmó una CA autofirmada que svc no conoce${already}`,
        fix: trust,
      };
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return {
        why: `el certificado de ${host} lo firmó una CA que svc no conoce${already}`,
        fix: trust,
      };
    case 'CERT_REVOKED':
      return { why: `el certificado de ${host} fue revocado` };
    default:
      return { why: `certificado rechazado (${code})${already}`, fix: trust };
  }
}
