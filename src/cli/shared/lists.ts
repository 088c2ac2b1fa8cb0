// --limit, --cobro, --desde and --hasta of the list commands (their options: cli/define.ts),
// applied to what the service sent: one place, so every list filters, limits and says so
// the same way, and every total is of what the filters kept.
import type { Client, ListRead } from '../../api/client.js';
import { markOf } from '../../api/exact.js';
import { ItemList } from '../../api/list.js';
import type { Context } from '../context.js';
import { parseLimit } from '../parse.js';
import { DateError, localDay, parseDayBound } from '../../domain/dates.js';
import { UsageError } from '../../errors.js';
import { cobroNamed, parseCobroRef } from './find-cobro.js';
import { dependsOnToday, serviceNow } from './service-clock.js';

export interface ListFilter {
  limit?: number;
  /** Only items of this payment request. */
  cobroId?: number;
  /** First and last day kept (`YYYY-MM-DD`, the service's zone), both inclusive. */
  desde?: string;
  hasta?: string;
  /** The service's zone, set with desde or hasta: a date with an offset is of its day there. */
  timeZone?: string;
}

/** --desde and --hasta as days of the service's zone; exit 2 for a date svc cannot read or a range that ends before it starts. */
export async function dateRange(
  ctx: Context,
  opts: { desde?: string; hasta?: string },
): Promise<{ desde?: string; hasta?: string; timeZone?: string }> {
  if (opts.desde === undefined && opts.hasta === undefined) return {};
  const timeZone = await ctx.zone();
  // "hoy", "7d", "24/12" count from the service's today (a sandbox's clock may be moved on).
  const words = [opts.desde, opts.hasta].some((t) => t !== undefined && dependsOnToday(t));
  const now = words ? await serviceNow(ctx) : undefined;
  const read = (bound: 'desde' | 'hasta') => {
    const text = opts[bound];
    if (text === undefined) return undefined;
    try {
      return parseDayBound(text, bound, { timeZone, now });
    } catch (err) {
      if (err instanceof DateError) throw new UsageError(`--${bound} ${err.message}`);
      throw err;
    }
  };
  const range = { desde: read('desde'), hasta: read('hasta'), timeZone };
  if (range.desde !== undefined && range.hasta !== undefined && range.desde > range.hasta) {
    throw new UsageError(
      `--desde ${range.desde} es posterior a --hasta ${range.hasta}: no queda ningún día`,
    );
  }
  return range;
}

/**
 * Checks --limit and --cobro; the request is looked up before the list is read (a code
 * by one search, an id by one read), so one that does not exist is exit 5, not an empty list.
 */
export async function listFilter(
  ctx: Context,
  client: Client,
  opts: { limit?: string; cobro?: string; referencia?: string; desde?: string; hasta?: string },
): Promise<ListFilter> {
  const limit = parseLimit(opts.limit);
  const range = await dateRange(ctx, opts);
  if (opts.cobro === undefined && opts.referencia === undefined) return { limit, ...range };
  // --referencia names the request as cobro ver does: exact, or the near ones listed (exit 2).
  const ref = parseCobroRef(opts.cobro, opts.referencia);
  const cobroId = (await cobroNamed(ctx, client, ref)).id;
  return { limit, cobroId, ...range };
}

/** Whether an item is of the request and days asked for. */
export function kept<T extends object>(
  item: T,
  filter: ListFilter,
  dateOf: (item: T) => string,
): boolean {
  if (filter.cobroId !== undefined && (item as { cobro_id?: number }).cobro_id !== filter.cobroId)
    return false;
  if (filter.desde !== undefined || filter.hasta !== undefined) {
    const date = String(dateOf(item));
    const day = filter.timeZone ? localDay(date, filter.timeZone) : date.slice(0, 10);
    if (
      (filter.desde !== undefined && day < filter.desde) ||
      (filter.hasta !== undefined && day > filter.hasta)
    )
      return false;
  }
  return true;
}

/**
 * How a list that only shows (no total) is read: only the items of the request and
 * days asked for are held (`keep`), so `--desde` one month costs that month's items,
 * not the merchant's history; and with --limit the reading stops once it has --limit
 * of them (`until`): `svc cobro listar --limit 20` costs 20 items, whatever the
 * history. `also` narrows what is shown further (the search svc widens itself). An
 * item the filters cannot judge (not an object, a request id or date of another type)
 * is held, so the list's checks refuse it rather than the filters dropping it unseen.
 */
export function readShown<T extends object>(
  filter: ListFilter,
  dateOf: (item: T) => string,
  also?: (item: T) => boolean,
): ListRead {
  const read: ListRead = {};
  const dated = filter.desde !== undefined || filter.hasta !== undefined;
  if (dated || filter.cobroId !== undefined || also)
    read.keep = (item) =>
      !judged(item, filter, dateOf) ||
      (kept(item as T, filter, dateOf) && (also?.(item as T) ?? true));
  const limit = filter.limit;
  if (limit === undefined) return read;
  let n = 0;
  // The item is not checked yet (any shape): one svc cannot read is not counted.
  read.until = (item) =>
    typeof item === 'object' &&
    item !== null &&
    kept(item as T, filter, dateOf) &&
    (also?.(item as T) ?? true) &&
    ++n >= limit;
  return read;
}

/** Whether the filters can judge an item: an object with the fields they read, of their types. */
function judged<T extends object>(
  item: unknown,
  filter: ListFilter,
  dateOf: (item: T) => string,
): boolean {
  if (typeof item !== 'object' || item === null) return false;
  if (filter.cobroId !== undefined && typeof (item as { cobro_id?: unknown }).cobro_id !== 'number')
    return false;
  if (filter.desde === undefined && filter.hasta === undefined) return true;
  return typeof (dateOf(item as T) as unknown) === 'string';
}

/** Rows to show: an array, or a whole list whose items are parsed one at a time as they are read. */
export type Rows<T> = Iterable<T> & { readonly length: number };

/**
 * The first --limit items of the request and days asked for (what is shown), and how
 * many there are in all (`count`), or, when the list was read only until it had
 * them (`cut`), that there may be more. Only the rows shown are kept. A whole list
 * shown whole (no filter, no --limit) is given as it is: its items are parsed as they
 * are printed and let go, never all at once (a year of requests is a million objects).
 */
export function firstRows<T extends object>(
  items: Iterable<T> & { cut?: boolean },
  filter: ListFilter,
  dateOf: (item: T) => string,
): { rows: Rows<T>; count: number; cut: boolean } {
  const whole =
    filter.limit === undefined &&
    filter.cobroId === undefined &&
    filter.desde === undefined &&
    filter.hasta === undefined;
  if (whole && items instanceof ItemList)
    return { rows: items as ItemList<T>, count: items.length, cut: items.cut };
  const rows: T[] = [];
  let count = 0;
  for (const item of items) {
    if (!kept(item, filter, dateOf)) continue;
    count++;
    if (filter.limit === undefined || rows.length < filter.limit) rows.push(item);
  }
  return { rows, count, cut: items.cut === true };
}

/** Each row through `f` as it is read (a table on a terminal reads them all first). */
export function* eachRow<T, U>(rows: Iterable<T>, f: (row: T) => U): Generator<U> {
  for (const row of rows) yield f(row);
}

/**
 * "mostrando n de m" when --limit left some out, on stderr in every format but --json
 * (there stderr is for a JSON error only, and the array's length says n): dim on a
 * terminal, plain when piped or with --csv, so a script sees the cut too. `note`
 * follows it (what totals are of).
 */
export function sayLimited(
  ctx: Context,
  shown: number,
  total: number,
  note = '',
  cut = false,
): void {
  if ((shown >= total && !cut) || ctx.globals.json) return;
  // Read only until --limit was reached: how many there are is not known.
  const line = cut
    ? `mostrando ${shown}; hay más (svc no leyó el resto de la lista)${note}`
    : `mostrando ${shown} de ${total}${note}`;
  ctx.io.err(ctx.io.stdoutTTY && !ctx.io.csv ? ctx.io.c.dim(line) : line);
}

/** What a list's items are folded into (`foldList`): a page's tally merges into another's. */
export interface Tally<A> {
  readonly count: number;
  merge(other: A): void;
}

/**
 * A list with totals in one pass: every item of the request and days asked for is
 * given to a tally as it arrives (one per page read, merged at the end) and let go,
 * but for the rows shown: the first --limit (`showRows` false: none, only totals).
 * Memory is for what is shown, not the list. Rows svc cannot take exactly are never
 * in a tally: `inexact` has those of the request and days asked for (shown as well),
 * which every figure must refuse (refuseInexact).
 */
export async function foldList<T extends object, A extends Tally<A>>(
  read: (r: ListRead) => Promise<{ data: ItemList<T> }>,
  filter: ListFilter,
  dateOf: (item: T) => string,
  how: { tally: () => A; add: (tally: A, item: T) => void; showRows: boolean },
): Promise<{ rows: T[]; inexact: T[]; tally: A; count: number }> {
  const limit = how.showRows ? filter.limit : 0;
  // Rows kept by each page's last reading (by page number) and their sum: a page keeps
  // rows only while the pages before it have not kept --limit of them, so a long list
  // holds --limit rows, not --limit a page (each kept row holds its text). A page's fold
  // is made once the pages before it have been read (only it and a page read ahead can
  // come after it, so finding what came before costs no walk over every page read); a
  // page read again starts its count again.
  const shownBy: number[] = [];
  let shownAll = 0;
  const fold = (page = 1) => {
    const tally = how.tally();
    shownAll -= shownBy[page] ?? 0;
    shownBy[page] = 0;
    let before = shownAll;
    for (let p = page + 1; p < shownBy.length; p++) before -= shownBy[p] ?? 0;
    return {
      tally,
      add(x: unknown): boolean {
        const item = x as T;
        if (!kept(item, filter, dateOf)) return false;
        how.add(tally, item);
        if (limit !== undefined && before + shownBy[page]! >= limit) return false;
        shownBy[page]!++;
        shownAll++;
        return true;
      },
    };
  };
  const { data } = await read({ fold });
  const folds = data.folds as ReturnType<typeof fold>[];
  // Not read as a stream: every item is here, none folded yet.
  const whole = folds.length === 0 ? fold() : undefined;
  const rows: T[] = [];
  const inexact: T[] = [];
  for (const item of data) {
    if (markOf(item)) {
      if (!kept(item, filter, dateOf)) continue;
      inexact.push(item);
      if (how.showRows) rows.push(item);
    } else if (!whole || whole.add(item)) rows.push(item);
  }
  let tally: A;
  if (whole) tally = whole.tally;
  else {
    tally = how.tally();
    for (const f of folds) tally.merge(f.tally);
  }
  return {
    rows: limit === undefined ? rows : rows.slice(0, limit),
    inexact,
    tally,
    count: tally.count + inexact.length,
  };
}
