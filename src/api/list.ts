// A list body `{ "data": [ ... ] }` kept as the text it arrived as. One scan finds
// where each item starts and ends; items are parsed one at a time when read, so
// a list of 10,000 is never held as 10,000 objects at once (`svc cobro listar
// --json` over 10,000 requests peaks near the size of the text, not of the tree).
// A short body is parsed whole instead: JSON.parse is native, and the scan, run
// once per call before V8 has compiled it, cost more than the tree it saves
// (start-up, #16).

import { EXIT, SvcError } from '../errors.js';
import { exactItem, type Inexact } from './exact.js';

/** Bodies up to this many characters are parsed whole (a page of about 250 requests). */
export const WHOLE_BODY_CHARS = 256 * 1024;

/**
 * What a reader folds a list's items into as they arrive (ListRead.fold): `add` is
 * given each item of the right shape, and answers whether the list keeps it too (a
 * row to show). Totals are made in one pass, in memory for what is shown.
 */
export interface Fold {
  add(item: unknown): boolean;
}

/**
 * A copy of `text` that holds nothing of a longer string it was cut from: a slice keeps
 * its whole source alive (one settlement kept of a page would keep the page).
 */
function unpinned(text: string): string {
  return ` ${text}`.slice(1);
}

/** The items of a list body, parsed on each read; iterate it as often as needed. */
export class ItemList<T = unknown> implements Iterable<T> {
  readonly length: number;
  /**
   * How many items the service sent in this list, kept or not: a streamed read
   * (ListRead.keep or fold) holds only some of them, so `length` can be fewer.
   */
  seen: number;
  /**
   * The folds the items were given to as they arrived, one per page read (ListRead.fold);
   * empty when the list was not read as a stream: then it holds every item, none folded.
   */
  folds: Fold[] = [];
  /**
   * The reading stopped before the list's end, once the reader had what it asked for
   * (ListStream's `until`): these are its first items, and more may follow.
   */
  cut = false;
  /** The reader had what it asked for by this list's end: a next page need not be read. */
  satisfied = false;

  constructor(
    private readonly text: string,
    /** start, end, start, end…: each item's slice of `text` (JSON with surrounding blanks). */
    private readonly spans: readonly number[],
    /** The body's other members, as sent (`data` is an empty array here). */
    readonly envelope: Record<string, unknown>,
    /** A short body's items, already parsed (then `text` and `spans` are empty). */
    private readonly items?: readonly unknown[],
    /** Items svc cannot take exactly, by index, as the check marked them (api/exact.ts). */
    private readonly marks?: ReadonlyMap<number, Inexact>,
  ) {
    this.length = items ? items.length : spans.length / 2;
    this.seen = this.length;
  }

  at(index: number): T | undefined {
    if (!Number.isInteger(index) || index < 0 || index >= this.length) return undefined;
    if (this.items) return this.items[index] as T;
    const text = this.text.slice(this.spans[2 * index], this.spans[2 * index + 1]);
    const mark = this.marks?.get(index);
    return mark ? exactItem(JSON.parse(text) as T, text, mark) : (JSON.parse(text) as T);
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
    this.folds = pages.flatMap((p) => p.folds);
    let n = 0;
    this.seen = 0;
    for (const page of pages) {
      this.starts.push(n);
      n += page.length;
      this.seen += page.seen;
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
 * The check each item of a list is handed as it is read: it may throw, and it returns
 * the mark of an item svc cannot take exactly (api/exact.ts), kept with the list.
 */
export type ItemCheck = (item: unknown, index: number) => unknown;

/** A check's answer that marks its item (anything else it returns marks nothing). */
const markIn = (answer: unknown): Inexact | undefined =>
  answer !== null && typeof answer === 'object' && 'why' in answer
    ? (answer as Inexact)
    : undefined;

/**
 * The items of `text` when it is valid JSON of the form `{ …, "data": [ … ], … }`;
 * undefined otherwise (the caller parses it whole to say why). Valid means exactly
 * what JSON.parse accepts: the envelope with `[]` in place of the list parses, and
 * every item parses on its own (checked here, one at a time, each then handed to
 * `check`, which may throw).
 */
export function scanList<T = unknown>(
  text: string,
  check?: ItemCheck,
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
    // An item svc cannot take exactly is kept with its text (read again item by item).
    if (items.some((item, i) => markIn(check?.(item, i)))) return scanList(text, check, 0);
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
  let marks: Map<number, Inexact> | undefined;
  for (let i = 0; i < spans.length; i += 2) {
    let item: unknown;
    try {
      item = JSON.parse(text.slice(spans[i], spans[i + 1]));
    } catch {
      return undefined;
    }
    const mark = markIn(check?.(item, i / 2));
    if (mark) (marks ??= new Map()).set(i / 2, mark);
  }
  return new ItemList<T>(text, spans, body as Record<string, unknown>, undefined, marks);
}

/** Characters of items kept in one piece of text by ListStream (many pieces, never one string). */
export const SEGMENT_CHARS = 1024 * 1024;

/**
 * A list body `{ …, "data": [ … ], … }` read as its bytes arrive: the items' text is kept
 * in pieces of about SEGMENT_CHARS (spans as scanList makes them), the rest of the body
 * (the envelope) apart. So a list is read whatever its size — no single string holds it,
 * which past 512 MiB V8 could not — and its bytes never wait whole in a buffer. result()
 * checks what scanList checks and gives undefined where that would (the caller then
 * reads the body as text, when it kept it, to say what it is).
 */
export class ListStream {
  private readonly decoder = new TextDecoder();
  private depth = 0;
  private inString = false;
  private escaped = false;
  private expectKey = false;
  private keyAt = -1;
  private valueIsData = false;
  private inData = false;
  private sawData = false;
  private broken = false;
  private started = false;
  private ended = false;
  /** The envelope's text, with `[]` where the items were. */
  private envelope = '';
  private text = '';
  private spans: number[] = [];
  private itemStart = -1;
  private readonly segments: { text: string; spans: number[] }[] = [];

  /** An item, or the envelope, longer than the most an item may be (`maxItemChars`). */
  tooLarge = false;
  /** `until` said enough: the rest of the body is not wanted (the items so far are the list). */
  enough = false;
  /** `until` said enough (at the last item, the body is still read to its end). */
  private satisfied = false;

  /** Items read whole so far (kept or not). */
  private itemsSeen = 0;
  /** The text so far of an item begun in an earlier chunk (with `until` or `keep`). */
  private openItem = '';
  private readonly until?: (item: unknown) => boolean;
  private readonly keep?: (item: unknown) => boolean;
  private readonly fold?: Fold;

  constructor(
    private readonly maxItemChars = Infinity,
    read: {
      /**
       * Called with each item as it is read whole (parsed, not yet checked); true stops
       * the reading there, that item included: `--limit 20` reads 20 items, not the list.
       */
      until?: (item: unknown) => boolean;
      /**
       * Called with each item as it is read whole (parsed, not yet checked); only the
       * items it keeps are kept (and checked): `caso` keeps one request's, in memory
       * bounded by them, not by the list.
       */
      keep?: (item: unknown) => boolean;
      /**
       * Given each item as it is read whole (parsed, not yet checked): `keep` in one,
       * and the list says it was (`folds`), so a reader knows the items are folded.
       */
      fold?: Fold;
    } = {},
  ) {
    this.until = read.until;
    this.fold = read.fold;
    const fold = read.fold;
    this.keep = fold ? (item) => fold.add(item) : read.keep;
  }

  /**
   * Whether the body's text is still worth keeping beside the list: until its items
   * start, it may yet be something else (an error, an HTML page) to be shown as text.
   */
  keepsText(): boolean {
    return !this.sawData && !this.broken;
  }

  /** Takes the next bytes; false once the body can no longer be a list svc reads. */
  push(chunk: Uint8Array): boolean {
    if (this.broken || this.tooLarge || this.enough) return false;
    this.feed(this.decoder.decode(chunk, { stream: true }));
    const item = this.itemStart < 0 ? 0 : this.text.length - this.itemStart;
    if (item > this.maxItemChars || this.envelope.length > this.maxItemChars) this.tooLarge = true;
    return !this.broken && !this.tooLarge;
  }

  private feed(chunk: string): void {
    let mark = 0;
    const n = chunk.length;
    for (let i = 0; i < n; i++) {
      const ch = chunk.charCodeAt(i);
      if (this.inString) {
        // To the closing quote in one search: a quote preceded by an odd run of
        // backslashes is escaped (`escaped`: the run goes on from the chunk before).
        let q = chunk.indexOf('"', i);
        for (;;) {
          let run = 0;
          const last = q < 0 ? n : q;
          while (last - 1 - run >= i && chunk.charCodeAt(last - 1 - run) === BACKSLASH) run++;
          if (last - run === i && this.escaped) run++;
          if (q < 0) {
            this.escaped = run % 2 === 1;
            i = n;
            break;
          }
          if (run % 2 === 0) break;
          q = chunk.indexOf('"', q + 1);
        }
        if (q < 0) break;
        i = q;
        this.escaped = false;
        this.inString = false;
        if (this.keyAt >= 0) {
          const whole = this.envelope + chunk.slice(mark, i + 1);
          try {
            this.valueIsData = JSON.parse(whole.slice(this.keyAt)) === 'data';
          } catch {
            this.broken = true;
            return;
          }
          this.keyAt = -1;
        }
        continue;
      }
      if (isBlank(ch)) continue;
      if (this.ended) {
        this.broken = true; // something after the body
        return;
      }
      if (this.inData && this.depth === 2) {
        if (ch === COMMA || ch === CLOSE_ARRAY) {
          const at = this.text.length + (i - mark);
          if (this.itemStart >= 0 && at - this.itemStart > this.maxItemChars) {
            this.tooLarge = true;
            return;
          }
          if (this.itemStart >= 0) {
            this.itemsSeen++;
            const value = this.until || this.keep ? this.itemAt(chunk, mark, i) : undefined;
            // An item that does not parse is kept: result() says what is wrong with it.
            if (!value || !this.keep || this.offer(this.keep, value.item))
              this.spans.push(this.itemStart, at);
            // Every item is offered to `until` (it counts them); the reading stops only
            // where more follow (a comma): at the end of the items it ends anyway.
            if (this.until && !this.satisfied && value && this.offer(this.until, value.item))
              this.satisfied = true;
            if (this.satisfied && ch === COMMA) {
              this.text += chunk.slice(mark, i);
              this.cut();
              this.enough = true;
              return;
            }
          } else if (ch === COMMA || this.itemsSeen > 0) {
            this.broken = true; // an empty item
            return;
          }
          this.itemStart = -1;
          if (ch === CLOSE_ARRAY) {
            this.text += chunk.slice(mark, i);
            mark = i;
            this.cut();
            this.inData = false;
            this.depth = 1;
            continue;
          }
          if (this.text.length + (i - mark) >= SEGMENT_CHARS) {
            this.text += chunk.slice(mark, i + 1);
            mark = i + 1;
            this.cut();
          }
          continue;
        }
        if (this.itemStart < 0) this.itemStart = this.text.length + (i - mark);
      }
      if (ch === QUOTE) {
        this.inString = true;
        this.escaped = false;
        if (this.depth === 1 && this.expectKey) {
          this.expectKey = false;
          this.keyAt = this.envelope.length + (i - mark);
        }
        continue;
      }
      if (this.depth === 0) {
        if (this.started || ch !== OPEN_OBJECT) {
          this.broken = true;
          return;
        }
        this.started = true;
        this.depth = 1;
        this.expectKey = true;
        continue;
      }
      if (this.depth === 1) {
        if (ch === COLON) continue;
        if (ch === COMMA) {
          this.expectKey = true;
          this.valueIsData = false;
          continue;
        }
        if (ch === CLOSE_OBJECT) {
          this.depth = 0;
          this.ended = true;
          continue;
        }
        if (ch === OPEN_ARRAY && this.valueIsData) {
          // The last "data" member wins, as in JSON.parse: an earlier one's items go.
          this.envelope += chunk.slice(mark, i + 1);
          mark = i + 1;
          this.segments.length = 0;
          this.text = '';
          this.spans = [];
          this.itemStart = -1;
          this.inData = true;
          this.sawData = true;
          this.depth = 2;
          continue;
        }
        this.valueIsData = false;
      }
      if (ch === OPEN_OBJECT || ch === OPEN_ARRAY) this.depth++;
      else if (ch === CLOSE_OBJECT || ch === CLOSE_ARRAY) {
        this.depth--;
        if (this.inData && this.depth < 2) {
          this.broken = true;
          return;
        }
      }
    }
    if (this.inData) {
      // An item still open at the chunk's end: its text so far kept apart, so reading it
      // whole (itemAt) never slices `text`, many pieces joined, which copies all of it.
      if ((this.until || this.keep) && this.itemStart >= 0)
        this.openItem =
          this.itemStart >= this.text.length
            ? chunk.slice(mark + (this.itemStart - this.text.length))
            : this.openItem + chunk.slice(mark);
      this.text += chunk.slice(mark);
    } else this.envelope += chunk.slice(mark);
  }

  /** The item just read (it ends at `end` of `chunk`), parsed; undefined when it is no JSON. */
  private itemAt(chunk: string, mark: number, end: number): { item: unknown } | undefined {
    const inText = this.text.length;
    const text =
      this.itemStart >= inText
        ? chunk.slice(mark + (this.itemStart - inText), end)
        : this.openItem + chunk.slice(mark, end);
    try {
      return { item: JSON.parse(text) as unknown };
    } catch {
      return undefined;
    }
  }

  /** What a reader's callback answers of an item; one that throws answers no. */
  private offer(f: (item: unknown) => boolean, item: unknown): boolean {
    try {
      return f(item) === true;
    } catch {
      return false;
    }
  }

  /** Closes the piece of items being read, when it has any (the text of items not kept goes). */
  private cut(): void {
    if (this.spans.length > 0 && this.keep) {
      // Only the kept items' text stays: a list read for a few items holds those.
      const parts: string[] = [];
      const spans: number[] = [];
      let at = 0;
      for (let i = 0; i < this.spans.length; i += 2) {
        const part = this.text.slice(this.spans[i], this.spans[i + 1]);
        parts.push(part);
        spans.push(at, at + part.length);
        at += part.length;
      }
      // One part alone would be a slice of the page, holding all of it: copied instead.
      this.segments.push({
        text: parts.length === 1 ? unpinned(parts[0]!) : parts.join(''),
        spans,
      });
    } else if (this.spans.length > 0) this.segments.push({ text: this.text, spans: this.spans });
    this.text = '';
    this.spans = [];
    this.itemStart = -1;
  }

  /** The reader had what it asked for (`until`): no further page is wanted. */
  get done(): boolean {
    return this.enough || this.satisfied;
  }

  /** The body without its items (`data` as []), parsed once the body is whole. */
  private closed?: { body: Record<string, unknown> | undefined };

  /**
   * Once the body is whole: its members but the items (`data` as []), without reading
   * the items (a page's paging, known before its items are checked); undefined when
   * the body is no such list. A reading stopped early (`until`) has `{ data: [] }`.
   */
  envelopeOf(): Record<string, unknown> | undefined {
    if (this.broken || this.tooLarge) return undefined;
    if (this.closed) return this.closed.body;
    // Stopped early: the items read so far, and an envelope of nothing but them.
    let envelope: unknown = { data: [] };
    if (!this.enough) {
      this.feed(this.decoder.decode());
      if (this.broken || !this.ended || !this.sawData || this.inData) envelope = undefined;
      else
        try {
          envelope = JSON.parse(this.envelope);
        } catch {
          envelope = undefined;
        }
    }
    const body = envelope as { data?: unknown } | undefined;
    const list = Array.isArray(body?.data) && body.data.length === 0;
    this.closed = { body: list ? (body as Record<string, unknown>) : undefined };
    return this.closed.body;
  }

  /** The list, each item checked as scanList checks it; undefined when the body is no such list. */
  result<T>(check?: ItemCheck): ItemList<T> | undefined {
    const body = this.envelopeOf();
    if (!body) return undefined;
    const pages: ItemList<T>[] = [];
    let index = 0;
    for (const s of this.segments) {
      let marks: Map<number, Inexact> | undefined;
      for (let i = 0; i < s.spans.length; i += 2) {
        let item: unknown;
        try {
          item = JSON.parse(s.text.slice(s.spans[i], s.spans[i + 1]));
        } catch {
          return undefined;
        }
        const mark = markIn(check?.(item, index++));
        if (mark) (marks ??= new Map()).set(i / 2, mark);
      }
      pages.push(new ItemList<T>(s.text, s.spans, body, undefined, marks));
    }
    const list =
      pages.length === 1
        ? pages[0]!
        : new PagedList<T>(pages.length ? pages : [new ItemList<T>('', [], body)]);
    list.cut = this.enough;
    list.satisfied = this.satisfied;
    list.seen = this.itemsSeen;
    if (this.fold) list.folds = [this.fold];
    return list;
  }
}
