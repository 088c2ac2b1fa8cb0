// A list body `{ "data": [ ... ] }` kept as the text it arrived as. One scan finds
// where each item starts and ends; items are parsed one at a time when read, so
// a list of 10,000 is never held as 10,000 objects at once (`svc cobro listar
// --json` over 10,000 requests peaks near the size of the text, not of the tree).
// A short body is parsed whole instead: JSON.parse is native, and the scan, run
// once per call before V8 has compiled it, cost more than the tree it saves
// (start-up, #16).

import { EXIT, SvcError } from '../errors.js';

/** Bodies up to this many characters are parsed whole (a page of about 250 requests). */
export const WHOLE_BODY_CHARS = 256 * 1024;

/** The items of a list body, parsed on each read; iterate it as often as needed. */
export class ItemList<T = unknown> implements Iterable<T> {
  readonly length: number;

  constructor(
    private readonly text: string,
    /** start, end, start, end…: each item's slice of `text` (JSON with surrounding blanks). */
    private readonly spans: readonly number[],
    /** The body's other members, as sent (`data` is an empty array here). */
    readonly envelope: Record<string, unknown>,
    /** A short body's items, already parsed (then `text` and `spans` are empty). */
    private readonly items?: readonly unknown[],
  ) {
    this.length = items ? items.length : spans.length / 2;
  }

  at(index: number): T | undefined {
    if (!Number.isInteger(index) || index < 0 || index >= this.length) return undefined;
    if (this.items) return this.items[index] as T;
    return JSON.parse(this.text.slice(this.spans[2 * index], this.spans[2 * index + 1])) as T;
  }

  *[Symbol.iterator](): Iterator<T> {
    for (let i = 0; i < this.length; i++) yield this.at(i) as T;
  }

  /** The whole body as one object, as JSON.parse would have given it. */
  toBody(): Record<string, unknown> & { data: T[] } {
    return { ...this.envelope, data: [...this] };
  }
}

/**
 * The pages of one list read one after the other, as one list: items in the order the
 * pages gave them; the envelope is the last page's (the one that says nothing follows).
 */
export class PagedList<T = unknown> extends ItemList<T> {
  override readonly length: number;
  /** Index of each page's first item. */
  private readonly starts: number[] = [];

  constructor(private readonly pages: readonly ItemList<T>[]) {
    super('', [], pages.at(-1)?.envelope ?? {}, []);
    let n = 0;
    for (const page of pages) {
      this.starts.push(n);
      n += page.length;
    }
    this.length = n;
  }

  override at(index: number): T | undefined {
    if (!Number.isInteger(index) || index < 0 || index >= this.length) return undefined;
    let lo = 0;
    let hi = this.pages.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= index) lo = mid;
      else hi = mid - 1;
    }
    return this.pages[lo]!.at(index - this.starts[lo]!);
  }

  override *[Symbol.iterator](): Iterator<T> {
    for (const page of this.pages) yield* page;
  }
}

// --- signs that a list goes on past this reply ------------------------------------
// The seed shows no paging ("Pagination, ordering and result caps of the list endpoints:
// not shown"), so a reply is read for the common signs a real service gives of a partial
// list: a Link header with rel="next" (RFC 8288), a next-page address in the body's
// envelope (next, next_url, links.next…), has_more: true, a page number below a page
// count, a total larger than the items. A list with none of them is complete.

/** What one page of a list says about the rest. */
export interface Paging {
  /** The next page's address as sent (relative to the page's own), and the sign that gave it. */
  next?: { href: string; sign: string };
  /** Signs that more follows which give no address svc can ask (a cursor, has_more alone…). */
  signs: string[];
  /** A count of the whole list the page declared (total, total_count, count…). */
  total?: { value: number; sign: string };
}

/** Envelope members that hold paging details, as services name them. */
const CONTAINERS = ['links', '_links', 'pagination', 'paging', 'meta', 'page_info', 'pageinfo'];
const NEXT_KEYS = ['next', 'nexturl', 'nextpage', 'nextpageurl', 'nextlink', 'nexthref'];
const CURSOR_KEYS = [
  'nextcursor',
  'nextpagetoken',
  'nexttoken',
  'nextpagecursor',
  'cursornext',
  'nextoffset',
];
const MORE_KEYS = ['hasmore', 'hasnext', 'hasnextpage', 'moreitems', 'truncated'];
const TOTAL_KEYS = ['total', 'totalcount', 'totalitems', 'totalresults', 'totalentries', 'count'];
const PAGE_KEYS = ['page', 'currentpage', 'pagenumber'];
const PAGES_KEYS = ['totalpages', 'pages', 'lastpage', 'pagecount'];

const norm = (key: string) => key.toLowerCase().replace(/[_-]/g, '');

/** A value that names an address (absolute, or a path or query on the same server). */
const isAddress = (v: string) => /^(https?:\/\/|\/|\?)/i.test(v.trim());

/** The targets of Link header entries whose rel includes "next" (RFC 8288 §3). */
export function linkNext(header: string | string[] | undefined): string[] {
  const text = Array.isArray(header) ? header.join(', ') : (header ?? '');
  const out: string[] = [];
  for (const m of text.matchAll(/<([^>]*)>((?:\s*;\s*[^;,]*)*)/g)) {
    for (const p of m[2]!.matchAll(/;\s*([A-Za-z*]+)\s*=\s*(?:"([^"]*)"|([^;,\s]*))/g)) {
      const rels = (p[2] ?? p[3] ?? '').toLowerCase().split(/\s+/);
      if (p[1]!.toLowerCase() === 'rel' && rels.includes('next')) out.push(m[1]!.trim());
    }
  }
  return out;
}

/** What a page (its Link header and its body without the items) says about the rest of the list. */
export function pagingOf(
  link: string | string[] | undefined,
  envelope: Record<string, unknown>,
): Paging {
  const paging: Paging = { signs: [] };
  const links = linkNext(link);
  if (links.length > 0) paging.next = { href: links[0]!, sign: 'Link rel="next"' };
  let page: number | undefined;
  let pages: number | undefined;
  const read = (box: Record<string, unknown>, prefix: string) => {
    for (const [key, value] of Object.entries(box)) {
      if (key === 'data' && prefix === '') continue;
      const k = norm(key);
      const name = prefix + key;
      if (NEXT_KEYS.includes(k)) {
        const href =
          typeof value === 'string'
            ? value
            : value &&
                typeof value === 'object' &&
                typeof (value as { href?: unknown }).href === 'string'
              ? (value as { href: string }).href
              : undefined;
        if (href !== undefined && href.trim() !== '' && isAddress(href)) {
          paging.next ??= { href: href.trim(), sign: name };
        } else if (value !== null && value !== false && value !== '' && value !== undefined) {
          paging.signs.push(`${name}: ${JSON.stringify(value)?.slice(0, 60)}`);
        }
      } else if (CURSOR_KEYS.includes(k)) {
        if (value !== null && value !== false && value !== '' && value !== undefined)
          paging.signs.push(`${name}: ${JSON.stringify(value)?.slice(0, 60)}`);
      } else if (MORE_KEYS.includes(k)) {
        if (value === true) paging.signs.push(`${name}: true`);
      } else if (TOTAL_KEYS.includes(k)) {
        if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0)
          if (paging.total === undefined || value > paging.total.value)
            paging.total = { value, sign: `${name}: ${value}` };
      } else if (PAGE_KEYS.includes(k)) {
        if (typeof value === 'number' && Number.isSafeInteger(value)) page = value;
      } else if (PAGES_KEYS.includes(k)) {
        if (typeof value === 'number' && Number.isSafeInteger(value)) pages = value;
      }
    }
  };
  read(envelope, '');
  for (const [key, value] of Object.entries(envelope)) {
    if (
      CONTAINERS.includes(norm(key)) &&
      value &&
      typeof value === 'object' &&
      !Array.isArray(value)
    )
      read(value as Record<string, unknown>, `${key}.`);
  }
  if (page !== undefined && pages !== undefined && page < pages)
    paging.signs.push(`página ${page} de ${pages}`);
  return paging;
}

/**
 * A list the service said goes on, where svc could not read the rest: any figure made of
 * it (a total, what is left to refund, a plan) would be wrong, so none is given. Exit 6.
 */
export class IncompleteListError extends SvcError {
  override name = 'IncompleteListError';
  readonly exitCode: number = EXIT.network;
  readonly code = 'lista_incompleta';
  constructor(
    readonly path: string,
    /** The sign seen, as the service sent it (`has_more: true`, `Link rel="next"`…). */
    readonly problem: string,
    why: string,
    readonly items: number,
  ) {
    super(
      `GET ${path}: la lista está incompleta (${problem}): ${why}; svc no da totales ni montos de una lista incompleta (leídos hasta acá: ${items})`,
    );
  }
}

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const COLON = 58;
const OPEN_OBJECT = 123;
const CLOSE_OBJECT = 125;
const OPEN_ARRAY = 91;
const CLOSE_ARRAY = 93;

/** Where the string opened at `open` ends: the next `"` not escaped, or -1. */
function closingQuote(text: string, open: number): number {
  let at = text.indexOf('"', open + 1);
  while (at >= 0) {
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
    at = text.indexOf('"', at + 1);
  }
  return -1;
}

function isBlank(ch: number): boolean {
  return ch === 32 || ch === 10 || ch === 13 || ch === 9;
}

/**
 * The items of `text` when it is valid JSON of the form `{ …, "data": [ … ], … }`;
 * undefined otherwise (the caller parses it whole to say why). Valid means exactly
 * what JSON.parse accepts: the envelope with `[]` in place of the list parses, and
 * every item parses on its own (checked here, one at a time, each then handed to
 * `check`, which may throw).
 */
export function scanList<T = unknown>(
  text: string,
  check?: (item: unknown, index: number) => void,
  wholeUpTo = WHOLE_BODY_CHARS,
): ItemList<T> | undefined {
  if (text.length <= wholeUpTo) {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return undefined;
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
    const items = (body as { data?: unknown }).data;
    if (!Array.isArray(items)) return undefined;
    items.forEach((item, i) => check?.(item, i));
    return new ItemList<T>('', [], { ...body, data: [] }, items);
  }
  const n = text.length;
  let depth = 0;
  let expectKey = false;
  let key: string | undefined;
  let valueIsData = false;
  // The data array being read (the last "data" member wins, as in JSON.parse).
  let inData = false;
  let itemStart = -1;
  let current: number[] = [];
  let spans: number[] | undefined;
  let arrayStart = -1;
  let arrayEnd = -1;
  let start = -1;
  let end = -1;

  for (let i = 0; i < n; i++) {
    const ch = text.charCodeAt(i);
    if (isBlank(ch)) continue;
    if (inData && depth === 2 && itemStart < 0 && ch !== COMMA && ch !== CLOSE_ARRAY) itemStart = i;
    if (ch === QUOTE) {
      const from = i;
      i = closingQuote(text, i);
      if (i < 0) return undefined;
      if (depth === 1 && expectKey) {
        try {
          key = JSON.parse(text.slice(from, i + 1)) as string;
        } catch {
          return undefined;
        }
        expectKey = false;
      }
      continue;
    }
    if (depth === 0) {
      if (start >= 0) return undefined; // something after the body
      if (ch !== OPEN_OBJECT) return undefined;
      start = i;
      depth = 1;
      expectKey = true;
      continue;
    }
    if (depth === 1) {
      if (ch === COLON) {
        valueIsData = key === 'data';
        continue;
      }
      if (ch === COMMA) {
        expectKey = true;
        valueIsData = false;
        continue;
      }
      if (ch === CLOSE_OBJECT) {
        depth = 0;
        end = i + 1;
        continue;
      }
      if (ch === OPEN_ARRAY && valueIsData) {
        inData = true;
        itemStart = -1;
        current = [];
        arrayStart = i;
        depth = 2;
        continue;
      }
    }
    if (inData && depth === 2 && (ch === COMMA || ch === CLOSE_ARRAY)) {
      if (itemStart >= 0) current.push(itemStart, i);
      else if (ch === COMMA || current.length > 0) return undefined; // an empty item: `[,` or `1,]`
      itemStart = -1;
      if (ch === CLOSE_ARRAY) {
        inData = false;
        spans = current;
        arrayEnd = i + 1;
        depth = 1;
      }
      continue;
    }
    if (ch === OPEN_OBJECT || ch === OPEN_ARRAY) depth++;
    else if (ch === CLOSE_OBJECT || ch === CLOSE_ARRAY) {
      depth--;
      if (inData && depth < 2) return undefined; // a `}` closing the data array
    }
  }
  if (depth !== 0 || end < 0 || spans === undefined) return undefined;

  let envelope: unknown;
  try {
    envelope = JSON.parse(text.slice(0, arrayStart) + '[]' + text.slice(arrayEnd));
  } catch {
    return undefined;
  }
  // A later "data" that is not an array replaces the one scanned, as in JSON.parse.
  const body = envelope as { data?: unknown };
  if (!Array.isArray(body.data) || body.data.length !== 0) return undefined;
  for (let i = 0; i < spans.length; i += 2) {
    let item: unknown;
    try {
      item = JSON.parse(text.slice(spans[i], spans[i + 1]));
    } catch {
      return undefined;
    }
    check?.(item, i / 2);
  }
  return new ItemList<T>(text, spans, body as Record<string, unknown>);
}
