// A list body `{ "data": [ ... ] }` kept as the text it arrived as. One scan finds
// where each item starts and ends; items are parsed one at a time when read, so
// a list of 10,000 is never held as 10,000 objects at once (`svc cobro listar
// --json` over 10,000 requests peaks near the size of the text, not of the tree).
// A short body is parsed whole instead: JSON.parse is native, and the scan, run
// once per call before V8 has compiled it, cost more than the tree it saves
// (start-up, #16).

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
