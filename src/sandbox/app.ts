// The sandbox as a request handler, without listening: faults first (never on the
// control plane), then route, key (from the headers: a stranger's body is never read),
// body (within a budget shared by all requests), handler; the one place that writes
// responses and logs requests (method, path, status, time — never headers or bodies).
// HEAD is answered as the GET of the same path (Node leaves the body out). The
// dashboard's routes answer only on loopback; its live stream is handed the response.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { ControlDeps } from './control.js';
import { Dispatcher } from './dispatcher.js';
import { SandboxError, noEndpoint, unauthorized } from './sandbox-error.js';
import { Faults, RequestLog, faultResponse, type Fault, type LogEntry } from './faults.js';
import { eventoView } from './control.js';
import { refresh } from './model.js';
import { Hub, isStreamReply } from './hub.js';
import { match, type Match } from './router.js';
import { replyProblem } from './reply-check.js';
import type { Merchant, Store } from './store.js';
import type { Clock } from './time.js';
import { Items, type ApiRequest, type Reply } from './types.js';
import { parseBody } from './json-body.js';
import { anyLatitude, withLatitude, type Latitude } from './latitude.js';
import { BodyBudget, SMALL_BODY_BYTES } from '../body-budget.js';
import { SANDBOX_KEY_RE, SANDBOX_LIVE_KEY_RE, isLoopbackHost } from '../domain/rules.js';

export const MAX_BODY_BYTES = 1024 * 1024;
const EXPIRY_SWEEP_MS = 1000;

export interface SandboxAppOptions {
  store: Store;
  clock: Clock;
  readyDelayMs: number;
  retrySchedule?: readonly number[];
  /** Called once per request, after the answer (or the cut). */
  onRequest?: (entry: LogEntry) => void;
  /** Called with errors that are bugs of the sandbox (the client got a 500). */
  onError?: (err: unknown) => void;
  /** Request bodies held at once, all requests together (default BODIES_IN_FLIGHT_BYTES, body-budget.ts). */
  maxBodiesBytes?: number;
  /**
   * Check every reply of a /v1 endpoint against the endpoint table (reply-check.ts);
   * one that does not fit becomes a 500 `internal_error` naming the field, and goes to
   * onError. For the tests: the emulator cannot drift from the table unnoticed.
   */
  checkReplies?: boolean;
  /**
   * Page the lists of /v1 (`?pagina=N`) this many items at a time, with `has_more`, `next`
   * and a `Link: <…>; rel="next"` header, as a real service may (the seed shows no paging).
   * Unset or 0: each list whole in one reply. The dashboard's own calls always get whole lists.
   */
  pageSize?: number;
  /**
   * Answers of /v1 endpoints compressed with this coding whatever the client asked
   * for (Content-Encoding), as a service or a proxy in front of it may do.
   */
  compress?: Coding;
  /** Fields, dates and states a real service may send within the seed (latitude.ts). */
  latitude?: Latitude;
}

/** The codings a body may come compressed with (`svc sandbox --comprimir`). */
export const CODINGS = ['gzip', 'deflate', 'br'] as const;
export type Coding = (typeof CODINGS)[number];

export interface SandboxApp {
  handle(req: IncomingMessage, res: ServerResponse): void;
  deps: ControlDeps;
  /** Tells the app where it is reachable (after listen); payer links follow it. */
  setBaseUrl(url: string): void;
  /** Requests being handled right now. */
  inflight(): number;
  close(): void;
}

export function createSandbox(options: SandboxAppOptions): SandboxApp {
  const { store, clock } = options;
  let baseUrl = 'http://127.0.0.1';
  const hub = new Hub();
  const dispatcher = new Dispatcher({
    clock,
    secret: store.webhookSecret,
    urlFor: (m) => store.merchant(m).webhookUrl,
    retrySchedule: options.retrySchedule,
    onSettled: (n) => store.settle(n),
    onAttempt: (m, entrega) => hub.publish('entrega', entrega, m),
  });
  store.now = clock.now;
  store.onEvents = (events) => {
    dispatcher.emit(events);
    // Each view formats a date: none is made while no dashboard is open.
    if (hub.size > 0)
      for (const e of events) hub.publish('evento', eventoView(clock, e), e.merchant);
  };
  // Notifications still owed from before a restart go out again, oldest first.
  dispatcher.emit([...store.pendingEvents.values()].sort((a, b) => a.seq - b.seq));
  const deps: ControlDeps = {
    store,
    clock,
    dispatcher,
    baseUrl: () => baseUrl,
    readyDelayMs: options.readyDelayMs,
    faults: new Faults(),
    log: new RequestLog(),
    hub,
  };
  let inflight = 0;
  const budget = new BodyBudget(options.maxBodiesBytes);

  // Requests expire by themselves: checked on every read, and swept here so their
  // event goes out even when nobody asks.
  const sweep = setInterval(() => {
    const now = clock.now();
    for (const rec of [...store.open]) {
      if (rec.vencMs !== null && rec.vencMs <= now) {
        try {
          refresh(deps, rec, now);
        } catch (err) {
          // A data file that cannot be written (503) is not a bug; the next sweep tries again.
          if (!(err instanceof SandboxError)) options.onError?.(err);
        }
      }
    }
  }, EXPIRY_SWEEP_MS);
  sweep.unref();

  const record = (
    method: string,
    path: string,
    status: number | null,
    started: number,
    req?: IncomingMessage,
  ) => {
    const key = /^Bearer (\S+)$/.exec(req?.headers.authorization ?? '')?.[1];
    const merchant = key ? store.merchantByKey(key) : undefined;
    const entry: LogEntry = deps.log.add({
      method,
      path,
      status,
      ms: Math.round((performance.now() - started) * 10) / 10,
      fecha: clock.local(clock.now()),
      comercio: merchant?.id ?? null,
      // The rehearsal merchant's requests say so: a log read later never mistakes them for real money.
      ...(merchant?.ensayo ? { ensayo: true as const } : {}),
    });
    options.onRequest?.(entry);
    hub.publish('log', entry, null);
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    inflight++;
    const started = performance.now();
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const qi = url.indexOf('?');
    const path = qi < 0 ? url : url.slice(0, qi);
    try {
      const fault = faultFor(deps.faults, req, method, path);
      const answered = fault && (await answerFault(fault, req, res));
      if (answered !== undefined) {
        record(method, path, answered, started, req);
        return;
      }
      // The dashboard (its calls are marked X-Svc-Panel) shows and counts whole lists itself.
      const paging =
        options.pageSize &&
        (method === 'GET' || method === 'HEAD') &&
        req.headers['x-svc-panel'] === undefined
          ? options.pageSize
          : 0;
      let reply = await process(
        req,
        method,
        path,
        qi < 0 ? '' : url.slice(qi + 1),
        fault?.action === 'delay' ? (fault.delay_ms ?? 0) : 0,
        paging,
      );
      if (options.checkReplies) reply = checked(method, path, reply);
      if (anyLatitude(options.latitude) && !isStreamReply(reply))
        reply = withLatitude(reply, path, options.latitude, clock.tz);
      if (paging) reply = paged(reply, path, qi < 0 ? '' : url.slice(qi + 1), paging, baseUrl);
      if (isStreamReply(reply)) {
        if (method === 'HEAD')
          write(res, { status: reply.status, body: '', contentType: reply.contentType });
        else await reply.stream(res);
        record(method, path, reply.status, started, req);
        return;
      }
      if (fault?.action === 'cut_after') {
        req.socket.destroy();
        record(method, path, null, started, req);
        return;
      }
      if (fault?.action === 'respond_after') {
        // The request was processed (a write is made); the answer is the fault's.
        if (!req.complete) dropRest(req);
        const r = faultResponse(fault);
        write(res, { status: r.status, body: r.text, contentType: r.type, headers: fault.headers });
        record(method, path, r.status, started, req);
        return;
      }
      // A long list is written as it is made; a compressed answer (--comprimir) whole.
      const coding = path.startsWith('/v1/') ? options.compress : undefined;
      const items = coding ? undefined : longList(reply);
      if (items) await writeList(res, reply, items);
      else write(res, reply, coding);
      if (!req.complete) dropRest(req);
      record(method, path, reply.status, started, req);
    } catch (err) {
      // A client that went away mid-body is logged like a cut: no answer, not a bug.
      if (err instanceof ClientGone) {
        record(method, path, null, started, req);
        return;
      }
      options.onError?.(err);
      if (!res.headersSent)
        write(res, {
          status: 500,
          body: { error: 'internal_error', message: 'error interno del sandbox' },
        });
      record(method, path, 500, started, req);
    } finally {
      inflight--;
    }
  }

  /**
   * A request through its stages: route, key, body, handler. A stage that refuses
   * throws a SandboxError, whose reply this is. `delayMs`: a delay fault, waited once
   * the body is in (the request timeout then no longer runs).
   */
  async function process(
    req: IncomingMessage,
    method: string,
    path: string,
    search: string,
    delayMs: number,
    pageSize: number,
  ): Promise<Reply> {
    const held = { bytes: 0 };
    try {
      const m = routeOf(req, method, path, () => servesLocal(req));
      // The key is judged from the headers: a body is read only for a merchant the sandbox knows.
      const merchant = m.route.access === 'public' ? undefined : authOf(store, req);
      const raw = await bodyOf(req, method, m.route.code, budget, held);
      if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
      const reply = m.route.handler(deps, apiRequest(req, m, merchant, search, raw, clock.now()));
      // Items are produced here, where a refusal they meet (a data file that cannot be
      // written) is still the request's answer.
      return gathered(reply, search, pageSize);
    } catch (err) {
      if (err instanceof SandboxError) return errorReply(err);
      throw err;
    } finally {
      budget.give(held.bytes);
    }
  }

  /** The reply itself when it fits the endpoint table (or the route is no endpoint of it); else a 500 that says why. */
  function checked(method: string, path: string, reply: Reply): Reply {
    const endpoint = match(method === 'HEAD' ? 'GET' : method, path)?.route.endpoint;
    const problem =
      endpoint && !isStreamReply(reply)
        ? replyProblem(endpoint, reply.status, reply.body)
        : undefined;
    if (!problem) return reply;
    const message = `the reply of ${method} ${path} (HTTP ${reply.status}) does not fit the endpoint table (api/contract.ts): ${problem}`;
    options.onError?.(new Error(message));
    return { status: 500, body: { error: 'internal_error', message } };
  }

  /**
   * The dashboard is for this machine only: the sandbox must be bound to loopback,
   * and the Host the browser sent must be a loopback name too (a DNS-rebound page
   * reaching 127.0.0.1 under another name gets no dashboard).
   */
  function servesLocal(req: IncomingMessage): boolean {
    let bound: string;
    let asked: string;
    try {
      bound = new URL(baseUrl).hostname;
      asked = new URL(`http://${req.headers.host ?? ''}`).hostname;
    } catch {
      return false;
    }
    return isLoopbackHost(bound) && isLoopbackHost(asked);
  }

  return {
    handle: (req, res) => void handle(req, res),
    deps,
    setBaseUrl(url) {
      baseUrl = url;
      store.relink(url);
    },
    inflight: () => inflight,
    close() {
      clearInterval(sweep);
      hub.close();
      dispatcher.close();
    },
  };
}

/**
 * Where a page of `next` starts (`?tras=ID`: after the item of that id, the last one the
 * page before showed), so a page costs its size however deep, and a request made while
 * a client pages does not push an item it read onto the next page; undefined without it.
 */
function belowOf(query: URLSearchParams): number | undefined {
  const after = query.get('tras');
  return after !== null && /^[1-9]\d{0,15}$/.test(after) ? Number(after) : undefined;
}

/** The page a list is asked for (`?pagina=N`, from 1; anything else is the first). */
function pageOf(query: URLSearchParams): number {
  const asked = query.get('pagina') ?? '1';
  return /^[1-9]\d{0,8}$/.test(asked) ? Number(asked) : 1;
}

/**
 * A list reply whose items are produced as read (Items) made into an array: the whole
 * list, or with `size` only the asked page's items, reading one past its end to know
 * whether more follow (Reply.more). Any other reply passes as it is.
 */
export function gathered(reply: Reply, search: string, size: number): Reply {
  const body = reply.body as { data?: unknown } | undefined;
  if (!(body?.data instanceof Items)) return reply;
  if (!size)
    return { ...reply, body: { ...body, data: [...body.data.from({ skip: 0, below: Infinity })] } };
  const data: unknown[] = [];
  let more = false;
  const query = new URLSearchParams(search);
  const below = belowOf(query);
  const start = below ? { skip: 0, below } : { skip: (pageOf(query) - 1) * size, below: Infinity };
  for (const item of body.data.from(start)) {
    if (data.length === size) {
      more = true;
      break;
    }
    data.push(item);
  }
  return { ...reply, body: { ...body, data }, more };
}

/**
 * One page of a /v1 list reply (`?pagina=N`, from 1; anything else is the first): its
 * items, `has_more`, and where the next page is, in the body (`next`, null on the last)
 * and in a Link header. A reply already cut to its page (gathered) keeps its items.
 * Any other reply passes as it is.
 */
export function paged(
  reply: Reply,
  path: string,
  search: string,
  size: number,
  base: string,
): Reply {
  const data = (reply.body as { data?: unknown } | undefined)?.data;
  if (!path.startsWith('/v1/') || reply.status !== 200 || !Array.isArray(data)) return reply;
  const query = new URLSearchParams(search);
  const page = pageOf(query);
  const cut = reply.more !== undefined;
  const items = cut ? data : data.slice((page - 1) * size, page * size);
  const more = cut ? reply.more === true : page * size < data.length;
  query.set('pagina', String(page + 1));
  // A list cut to its page (gathered) says where the next starts: after its last item.
  const last = items.at(-1) as { id?: unknown } | undefined;
  if (cut && typeof last?.id === 'number') query.set('tras', String(last.id));
  const next = more ? `${base}${path}?${query}` : null;
  const { more: _cut, ...rest } = reply;
  return {
    ...rest,
    body: { data: items, has_more: more, next },
    headers: { ...reply.headers, ...(next ? { Link: `<${next}>; rel="next"` } : {}) },
  };
}

/** The client closed its connection before its request body was whole. */
class ClientGone extends Error {
  override name = 'ClientGone';
}

const errorReply = (err: SandboxError): Reply => ({
  status: err.status,
  body: { error: err.code, message: err.message },
  ...(err.headers ? { headers: err.headers } : {}),
});

/** The same refusal, closing the connection (the rest of the request is not read). */
const closing = (err: SandboxError): SandboxError =>
  new SandboxError(err.status, err.code, err.message, { Connection: 'close' });

/** 413 with the endpoint's code; the connection closes, since the rest of the body is not read. */
const tooLarge = (code: string) =>
  new SandboxError(413, code, `body: más de ${MAX_BODY_BYTES} bytes`, { Connection: 'close' });

/** 503 when the bodies held at once are at the budget: before reading (the connection closes), the client retries. */
const busy = () =>
  new SandboxError(
    503,
    'unavailable',
    'el sandbox tiene demasiados cuerpos de pedidos a la vez; reintentá en un momento',
    { 'Retry-After': '1', Connection: 'close' },
  );

// --- the stages of a request, in order ------------------------------------------------

/**
 * Faults: the one armed for this request, if any. The dashboard (at /, and its own
 * calls, marked X-Svc-Panel) is no client under test: a fault like "/v1/cobros*"
 * waits for the developer's app, not the page; the control plane is never faulted.
 */
function faultFor(
  faults: Faults,
  req: IncomingMessage,
  method: string,
  path: string,
): Fault | undefined {
  if (path.startsWith('/_sandbox/') || path === '/' || req.headers['x-svc-panel'] !== undefined)
    return undefined;
  return faults.take(method === 'HEAD' ? 'GET' : method, path);
}

/**
 * A fault that answers in the sandbox's place (cut, respond): the status it logs
 * (null for a cut). Undefined when the request goes on (delay, cut_after, respond_after).
 */
async function answerFault(
  fault: Fault,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<number | null | undefined> {
  if (fault.action === 'cut') {
    req.socket.destroy();
    return null;
  }
  if (fault.action !== 'respond') return undefined;
  await drain(req);
  const r = faultResponse(fault);
  res.writeHead(r.status, {
    'Content-Type': r.type,
    'Content-Length': Buffer.byteLength(r.text),
    ...fault.headers,
  });
  res.end(r.text);
  return r.status;
}

/**
 * Route: the route of a method and path (HEAD as GET). No such route, or a dashboard
 * route asked from beyond this machine, is 404; a body declared over the limit is
 * refused before a byte of it is read.
 */
function routeOf(
  req: IncomingMessage,
  method: string,
  path: string,
  servesLocal: () => boolean,
): Match {
  const m = match(method === 'HEAD' ? 'GET' : method, path);
  const oversized = declaredSize(req) > MAX_BODY_BYTES;
  if (!m) {
    if (oversized) throw closing(noEndpoint());
    req.resume();
    throw noEndpoint();
  }
  if (m.route.local && !servesLocal()) {
    req.resume();
    throw noEndpoint();
  }
  if (oversized) throw tooLarge(m.route.code);
  return m;
}

/** Key: the merchant of the Authorization header; a refusal before the body arrived closes the connection. */
function authOf(store: Store, req: IncomingMessage): Merchant {
  try {
    return authenticate(store, req.headers.authorization);
  } catch (err) {
    if (err instanceof SandboxError && !req.complete) throw closing(err);
    throw err;
  }
}

function authenticate(store: Store, header: string | undefined): Merchant {
  if (!header)
    throw unauthorized('falta el header Authorization; mandá "Authorization: Bearer svc_test_…"');
  const m = /^Bearer +(\S+) *$/i.exec(header);
  if (!m) throw unauthorized('header Authorization mal formado; se espera "Bearer <clave>"');
  const key = m[1]!;
  if (key.startsWith('svc_live_')) {
    // Only its rehearsal merchant's live key: any other live key is a real one, sent here by mistake.
    const m = SANDBOX_LIVE_KEY_RE.test(key) ? store.merchantByKey(key) : undefined;
    if (m?.ensayo) return m;
    throw unauthorized(
      'el sandbox toma claves test (svc_test_…) y su propia clave live de ensayo (api_key_live de su línea de arranque); otras claves live sirven solo contra el servicio real',
    );
  }
  if (!SANDBOX_KEY_RE.test(key)) throw unauthorized('clave mal formada; se espera svc_test_…');
  const merchant = store.merchantByKey(key);
  if (!merchant) throw unauthorized('clave desconocida');
  return merchant;
}

/**
 * Body: its bytes (null for GET and HEAD), within the budget of bodies held at once:
 * a declared body takes its size from the budget before a byte is read, a chunked one
 * as it arrives. `held.bytes` is what was taken, for the caller to give back.
 */
async function bodyOf(
  req: IncomingMessage,
  method: string,
  code: string,
  budget: BodyBudget,
  held: { bytes: number },
): Promise<Buffer | null> {
  if (method === 'GET' || method === 'HEAD') {
    req.resume();
    return null;
  }
  const declared = declaredSize(req);
  if (declared > 0) {
    if (!budget.take(declared, declared <= SMALL_BODY_BYTES)) throw busy();
    held.bytes = declared;
  }
  const got = await readBody(req, (n) => {
    if (declared > 0) return true;
    if (!budget.take(n, false)) return false;
    held.bytes += n;
    return true;
  });
  if (got === 'too_large') throw tooLarge(code);
  if (got === 'busy') throw busy();
  return got;
}

/** What a handler gets: the merchant (none on public routes), ids, query, and the body parsed on first use. */
function apiRequest(
  req: IncomingMessage,
  m: Match,
  merchant: Merchant | undefined,
  search: string,
  raw: Buffer | null,
  now: number,
): ApiRequest {
  const contentType = req.headers['content-type'];
  let parsed: { value: unknown } | undefined;
  return {
    merchant: merchant as Merchant,
    params: m.params,
    query: new URLSearchParams(search),
    now,
    json() {
      parsed ??= { value: parseBody(raw, contentType, m.route.code) };
      return parsed.value;
    },
    text() {
      return raw === null ? '' : raw.toString('utf8');
    },
  };
}

/** The declared Content-Length, or 0 when absent or not a number (chunked bodies are counted while read). */
function declaredSize(req: IncomingMessage): number {
  const v = req.headers['content-length'];
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : 0;
}

/**
 * After answering a request whose body was not read (413): discard what still comes,
 * and close the connection if the client keeps sending past a grace period.
 */
function dropRest(req: IncomingMessage): void {
  req.resume();
  const killer = setTimeout(() => req.socket.destroy(), 2_000);
  killer.unref();
  req.socket.once('close', () => clearTimeout(killer));
}

/** Reads a body to its end keeping nothing (a fault's answer does not need it); resolves when it ends or the client leaves. */
function drain(req: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    req.once('end', resolve);
    req.once('close', resolve);
    req.resume();
  });
}

/**
 * The body's bytes; 'too_large' as soon as more than MAX_BODY_BYTES arrived, 'busy'
 * when `grow` refuses a chunk (the rest is not kept); rejects with ClientGone when
 * the client leaves mid-body.
 */
function readBody(
  req: IncomingMessage,
  grow: (bytes: number) => boolean,
): Promise<Buffer | 'too_large' | 'busy'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (settle: () => void) => {
      if (done) return;
      done = true;
      req.off('data', onData);
      settle();
    };
    const onData = (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        chunks.length = 0;
        finish(() => resolve('too_large'));
        return;
      }
      if (!grow(c.length)) {
        chunks.length = 0;
        finish(() => resolve('busy'));
        return;
      }
      chunks.push(c);
    };
    req.on('data', onData);
    req.once('end', () => finish(() => resolve(Buffer.concat(chunks, size))));
    req.once('error', () =>
      finish(() => reject(new ClientGone('client closed the connection mid-body'))),
    );
    req.once('close', () => {
      if (!req.complete)
        finish(() => reject(new ClientGone('client closed the connection mid-body')));
    });
  });
}

/** A list longer than this is written as its items are turned to text, a slice at a time. */
export const STREAMED_LIST_ITEMS = 1000;
const SLICE_CHARS = 64 * 1024;

/** The items of a JSON reply whose data is a list longer than STREAMED_LIST_ITEMS. */
function longList(reply: Reply): unknown[] | undefined {
  if (reply.contentType) return undefined;
  const data = (reply.body as { data?: unknown } | null)?.data;
  return Array.isArray(data) && data.length > STREAMED_LIST_ITEMS ? data : undefined;
}

/**
 * A long list body `{"data":[…], …}` written item by item in slices of about 64 KiB,
 * waiting for the socket when it is full: the reply is never one string (at a million
 * requests that string would be past what V8 can hold) and its bytes are never all in
 * memory at once. Chunked, so without a Content-Length.
 */
async function writeList(res: ServerResponse, reply: Reply, data: unknown[]): Promise<void> {
  const { data: _items, ...rest } = reply.body as Record<string, unknown>;
  res.writeHead(reply.status, {
    'Content-Type': 'application/json; charset=utf-8',
    ...reply.headers,
  });
  let slice = '{"data":[';
  for (let i = 0; i < data.length; i++) {
    slice += (i === 0 ? '' : ',') + JSON.stringify(data[i]);
    if (slice.length < SLICE_CHARS) continue;
    if (!res.write(slice)) await drained(res);
    if (res.destroyed) return;
    slice = '';
  }
  const tail = JSON.stringify(rest);
  res.end(`${slice}]${tail === '{}' ? '}' : `,${tail.slice(1)}`}`);
}

/** Resolves once the response can take more, or is gone. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}

function write(res: ServerResponse, reply: Reply, coding?: Coding): void {
  const text = reply.contentType ? String(reply.body) : JSON.stringify(reply.body);
  const bytes = coding ? compressed(Buffer.from(text), coding) : Buffer.from(text);
  res.writeHead(reply.status, {
    'Content-Type': reply.contentType ?? 'application/json; charset=utf-8',
    'Content-Length': bytes.length,
    ...(coding ? { 'Content-Encoding': coding } : {}),
    ...reply.headers,
  });
  res.end(bytes);
}

function compressed(bytes: Buffer, coding: Coding): Buffer {
  const zlib = process.getBuiltinModule('node:zlib');
  return coding === 'gzip'
    ? zlib.gzipSync(bytes)
    : coding === 'deflate'
      ? zlib.deflateSync(bytes)
      : zlib.brotliCompressSync(bytes);
}
