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
  /** A list reply already cut to one page (app.ts): whether more items follow it. */
  more?: boolean;
}

export type Handler = (deps: Deps, req: ApiRequest) => Reply;

export const ok = (data: unknown, status = 200): Reply => ({ status, body: { data } });

/**
 * Where a list is read from: past its first `skip` items, or (a page's `next`, which
 * carries the last id shown) from the first item whose id is below `below`.
 */
export interface ListStart {
  skip: number;
  below: number;
}

/**
 * The items of a list, newest first, produced as they are read from `start`. A page
 * (svc sandbox --por-pagina) reads only up to its own end, and the next one starts
 * after the last id shown, so any page costs its size, not the merchant's history.
 */
export class Items {
  constructor(readonly from: (start: ListStart) => Iterable<unknown>) {}
}

/** A 200 list reply whose items are produced as they are read (app.ts cuts or gathers them). */
export const okItems = (from: (start: ListStart) => Iterable<unknown>): Reply =>
  ok(new Items(from));

/** Passes over the first `skip` items of `items` (after a filter, which must see each item). */
export function* skipping<T>(items: Iterable<T>, skip: number): Generator<T> {
  let left = skip;
  for (const item of items) {
    if (left > 0) left--;
    else yield item;
  }
}
