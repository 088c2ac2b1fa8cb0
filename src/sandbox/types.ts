// What handlers receive and return: the store and its helpers, the parsed request,
// and a reply that app.ts writes (the only place that writes responses).
import type { Dispatcher } from './dispatcher.js';
import type { Merchant, Store } from './store.js';
import type { Clock } from './time.js';

export interface Deps {
  store: Store;
  clock: Clock;
  dispatcher: Dispatcher;
  /** The address the sandbox answers on (for `url` of payment requests). */
  baseUrl(): string;
  /** Milliseconds from creation until cvu/qr are filled. */
  readyDelayMs: number;
}

export interface ApiRequest {
  merchant: Merchant;
  /** Captured path segments (ids), as text. */
  params: string[];
  query: URLSearchParams;
  /** The parsed JSON body; throws the endpoint's 400 when it is not valid JSON. */
  json(): unknown;
  /** The body as UTF-8 text ('' when empty), for routes that take a form (the payer page). */
  text?(): string;
  now: number;
}

export interface Reply {
  status: number;
  /** JSON value; raw text when contentType is given. */
  body: unknown;
  contentType?: string;
  /** Extra response headers (Location of a redirect, the payer page's CSP). */
  headers?: Record<string, string>;
}

export type Handler = (deps: Deps, req: ApiRequest) => Reply;

export const ok = (data: unknown, status = 200): Reply => ({ status, body: { data } });
