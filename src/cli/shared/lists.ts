// --limit and --cobro of the list commands (their options: cli/define.ts), applied to what the
// service sent: one place, so every list filters, limits and says so the same way.
import type { Client } from '../../api/client.js';
import type { Context } from '../context.js';
import { parseLimit } from '../parse.js';
import { cobroNamed, parseCobroRef } from './find-cobro.js';

export interface ListFilter {
  limit?: number;
  /** Only items of this payment request. */
  cobroId?: number;
}

/**
 * Checks --limit and --cobro; the request is looked up before the list is read (a code
 * by one search, an id by one read), so one that does not exist is exit 5, not an empty list.
 */
export async function listFilter(ctx: Context, client: Client, opts: { limit?: string; cobro?: string }): Promise<ListFilter> {
  const limit = parseLimit(opts.limit);
  if (opts.cobro === undefined) return { limit };
  const ref = parseCobroRef(opts.cobro, undefined);
  const cobroId = (await cobroNamed(ctx, client, ref)).id;
  return { limit, cobroId };
}

/**
 * The items of the request asked for (`matched`: what totals are of), and the first
 * `limit` of them (`rows`: what is shown; lists come newest first). --limit shortens
 * what is shown, never what is counted.
 */
export function applyFilter<T extends { cobro_id: number }>(items: Iterable<T>, filter: ListFilter): { rows: T[]; matched: T[] } {
  const matched: T[] = [];
  for (const item of items) if (filter.cobroId === undefined || item.cobro_id === filter.cobroId) matched.push(item);
  return { rows: filter.limit === undefined ? matched : matched.slice(0, filter.limit), matched };
}

/**
 * "mostrando n de m" when --limit left some out, on stderr in every format but --json
 * (there stderr is for a JSON error only, and the array's length says n): dim on a
 * terminal, plain when piped or with --csv, so a script sees the cut too. `note`
 * follows it (what totals are of).
 */
export function sayLimited(ctx: Context, shown: number, total: number, note = ''): void {
  if (shown >= total || ctx.globals.json) return;
  const line = `mostrando ${shown} de ${total}${note}`;
  ctx.io.err(ctx.io.stdoutTTY && !ctx.io.csv ? ctx.io.c.dim(line) : line);
}
